import { readFileSync } from 'node:fs';
import { dependsOnContext } from './protocol/context.ts';
const rate = (qs: string[]) => `${qs.filter(dependsOnContext).length}/${qs.length} = ${(100 * qs.filter(dependsOnContext).length / qs.length).toFixed(1)} %`;
for (const f of ['railway-docs', 'demo-kb']) {
  const qa = JSON.parse(readFileSync(`scripts/eval/qa/${f}.json`, 'utf8'));
  const qs = qa.items.map((i: { q: string }) => i.q);
  console.log(f, 'items', rate(qs), 'off-topic', rate(qa.out_of_kb ?? []));
  console.log('  fired:', qs.filter(dependsOnContext));
  const c = JSON.parse(readFileSync(`scripts/eval/qa/${f}-conversations.json`, 'utf8'));
  const later = c.conversations.flatMap((x: { turns: { q: string }[] }) => x.turns.slice(1).map((t) => t.q));
  console.log('  later turns', rate(later), 'missed:', later.filter((q: string) => !dependsOnContext(q)));
}
const squad = JSON.parse(readFileSync('/work/shared/data/squad-v2-dev-public.json', 'utf8'));
const sq: string[] = squad.data.flatMap((a: any) => a.paragraphs.flatMap((p: any) => p.qas.map((q: any) => q.question)));
console.log('squad', rate(sq));
console.log('  sample fired:', sq.filter(dependsOnContext).slice(0, 25));
