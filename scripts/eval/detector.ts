/**
 * How often the follow-up detector (protocol/context.ts) fires: on complete questions (every question of the
 * single-question sets in scripts/eval/qa/, their off-topic ones, and SQuAD's), where it should not, and on
 * the later turns of the conversation sets, where it should.
 *
 *   npx tsx scripts/eval/detector.ts [../shared/data/squad-v2-dev-public.json]
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { dependsOnContext } from '../../protocol/context.ts';

const dir = path.join(import.meta.dirname, 'qa');
const rate = (qs: string[]) => {
  const fired = qs.filter(dependsOnContext).length;
  return `${fired} / ${qs.length} = ${((100 * fired) / Math.max(1, qs.length)).toFixed(1)} %`;
};
const complete: string[] = [];
for (const name of readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const file = JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
  if (file.conversations) {
    const turns = [...file.conversations, ...(file.topic_switch ?? [])] as {
      turns: { q: string; standalone?: string }[];
    }[];
    const later = file.conversations.flatMap((c: { turns: { q: string }[] }) => c.turns.slice(1).map((t) => t.q));
    const whole = turns.flatMap((c, i) => [
      ...(i < file.conversations.length ? [c.turns[0]!.q] : c.turns.map((t) => t.q)),
      ...c.turns.flatMap((t) => (t.standalone ? [t.standalone] : [])),
    ]);
    console.log(`${name}: later turns ${rate(later)}; complete (first turns, switches, rewrites) ${rate(whole)}`);
  } else {
    const qs = [...file.items.map((i: { q: string }) => i.q), ...(file.out_of_kb ?? [])];
    complete.push(...qs);
    console.log(
      `${name}: complete questions ${rate(qs)}${qs.some(dependsOnContext) ? ` — ${JSON.stringify(qs.filter(dependsOnContext))}` : ''}`,
    );
  }
}
const squadFile = process.argv[2];
if (squadFile) {
  const squad = JSON.parse(readFileSync(squadFile, 'utf8')) as {
    data: { paragraphs: { qas: { question: string }[] }[] }[];
  };
  const qs = squad.data.flatMap((a) => a.paragraphs.flatMap((p) => p.qas.map((q) => q.question)));
  console.log(`SQuAD (${path.basename(squadFile)}): ${rate(qs)}`);
}
