/**
 * `npm run bench -- generation [--questions 10] [--model test-double/smollm2-copy] [--out bench-results]`
 *
 * Generative mode as a visitor's browser runs it: the real server (server/runtime/node/start.ts, generative
 * mode, demo knowledge base) and the demo page in Debian's Chromium. The widget's generator Worker loads the
 * writing model with transformers.js on wasm, then writes an answer for each of the demo questions in turn.
 * Per question, from the widget's own `kb-answer-written` event: time to the first generated token (prompt
 * processing included) and decoding speed (tokens/s after the first), plus the visitor's wait from the
 * quoted answer being shown (`kb-answer`) to the written one. Also: the model's load time (panel open →
 * ready) and its bytes. Writes <out>/<date>-generation.json and .md (printed too). Reports; asserts nothing.
 *
 * Only the test double can be measured here (the real weights cannot be downloaded on this machine): its
 * speed is that of a one-layer graph, so it measures the pipeline's overhead (tokenising, the KV cache,
 * streaming, the UI), not a real model's compute. docs/generative-mode.md gives the real model's published size.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../lib/chromium.mjs';
import { machineInfo } from './report.ts';
import { startServer } from './server.ts';
import { percentiles } from './stats.ts';

const USAGE =
  'usage: npm run bench -- generation [--questions 10] [--model test-double/smollm2-copy] [--out bench-results]';
const QUESTIONS = [
  'How do I add the chat widget to my website?',
  'Which browsers are supported?',
  'How do I change the port the server runs on?',
  'Which file types can I index?',
  'How long can an answer be?',
  'How do I load my own documents?',
  'Where are the chat conversations stored?',
  'How does the widget decide it does not know?',
  'Can I change the colours of the widget?',
  'How do I deploy to Cloudflare?',
];

interface Written {
  question: string;
  tokens: number;
  first_token_ms: number;
  tokens_per_second: number;
  /** `kb-answer` (the quoted answer shown) → `kb-answer-written` (the written one finished). */
  wait_ms: number;
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      questions: { type: 'string', default: String(QUESTIONS.length) },
      model: { type: 'string', default: 'test-double/smollm2-copy' },
      out: { type: 'string', default: 'bench-results' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void console.log(USAGE);
  const count = Math.max(1, Math.min(QUESTIONS.length, Number(values.questions) || QUESTIONS.length));
  const dataDir = await mkdtemp(path.join(tmpdir(), 'kb-bench-generation-'));
  const server = await startServer(dataDir, 300_000, {
    KB_ANSWER_MODE: 'generative',
    KB_GENERATION_MODEL: values.model!,
    KB_MODEL_DIR: path.resolve(import.meta.dirname, '../../test/fixtures/models'),
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const modelBytes = { value: 0 };
    page.on('response', async (response) => {
      if (!response.url().includes(`/${values.model}/`)) return;
      const length = Number(response.headers()['content-length']);
      if (Number.isFinite(length)) modelBytes.value += length;
    });
    await page.goto(server.url);
    await page.evaluate(() => {
      const w = window as unknown as { __written: unknown[]; __answered: number[] };
      w.__written = [];
      w.__answered = [];
      document.addEventListener('kb-answer', () => w.__answered.push(performance.now()));
      document.addEventListener('kb-answer-written', (event) =>
        w.__written.push({ ...(event as CustomEvent).detail, at: performance.now() }),
      );
    });
    const opened = performance.now();
    await page.locator('kb-chat [part="bubble"]').click();
    await page.waitForFunction(
      () =>
        (
          document.querySelector('kb-chat') as unknown as {
            ui?: { generator: { status: string }; embedder: { status: string } };
          }
        ).ui?.generator.status === 'ready',
      null,
      { timeout: 120_000, polling: 20 },
    );
    const loadMs = performance.now() - opened;
    await page.waitForFunction(
      () =>
        (document.querySelector('kb-chat') as unknown as { ui: { embedder: { status: string } } }).ui.embedder
          .status === 'ready',
      null,
      { timeout: 60_000 },
    );

    const results: Written[] = [];
    for (const question of QUESTIONS.slice(0, count)) {
      const before = await page.evaluate(() => (window as unknown as { __written: unknown[] }).__written.length);
      await page.locator('kb-chat [part="input"]').fill(question);
      await page.locator('kb-chat [part="send-button"]').click();
      // Settled: written (an event) or not (the turn's written status failed, or no passages to write from).
      await page.waitForFunction(
        (n) => {
          const w = window as unknown as { __written: unknown[] };
          if (w.__written.length > n) return true;
          const ui = (
            document.querySelector('kb-chat') as unknown as {
              ui: { chat: { turns: { kind: string; status?: string; written?: { status: string } }[] } };
            }
          ).ui;
          const last = ui.chat.turns.at(-1);
          return (
            last?.kind === 'refusal' ||
            (last?.kind === 'answer' && last.status === 'done' && (!last.written || last.written.status === 'failed'))
          );
        },
        before,
        { timeout: 120_000, polling: 20 },
      );
      const got = await page.evaluate((n) => {
        const w = window as unknown as {
          __written: { tokens: number; firstTokenMs: number; tokensPerSecond: number; at: number }[];
          __answered: number[];
        };
        const written = w.__written[n];
        return written ? { ...written, answeredAt: w.__answered.at(-1) ?? written.at } : null;
      }, before);
      if (!got) {
        console.error(`  "${question}": no written answer (refused, or the model declined)`);
        continue;
      }
      results.push({
        question,
        tokens: got.tokens,
        first_token_ms: got.firstTokenMs,
        tokens_per_second: got.tokensPerSecond,
        wait_ms: got.at - got.answeredAt,
      });
      console.error(
        `  "${question}": ${got.tokens} tokens, first after ${got.firstTokenMs.toFixed(0)} ms, ${got.tokensPerSecond.toFixed(0)} tokens/s`,
      );
    }

    const report = {
      date: new Date().toISOString(),
      machine: machineInfo(),
      model: values.model,
      model_load_ms: Math.round(loadMs),
      model_bytes: modelBytes.value,
      questions: count,
      written: results.length,
      first_token_ms: percentiles(results.map((r) => r.first_token_ms)),
      tokens_per_second: percentiles(results.map((r) => r.tokens_per_second)),
      tokens: percentiles(results.map((r) => r.tokens)),
      wait_after_quoted_ms: percentiles(results.map((r) => r.wait_ms)),
      results,
    };
    const md = [
      `# Generative mode in Chromium — ${report.date.slice(0, 10)}`,
      '',
      `\`npm run bench -- generation --questions ${count} --model ${values.model}\`, commit ${report.machine.git_commit?.slice(0, 7)}${report.machine.git_dirty ? ' (dirty)' : ''}, ${report.machine.cpus} CPUs, Node ${report.machine.node}, Chromium (wasm, 1 thread).`,
      '',
      `Model: \`${values.model}\` (${(modelBytes.value / 1024).toFixed(0)} KB fetched), loaded ${report.model_load_ms} ms after the panel opened. Written: ${results.length} of ${count} answers.`,
      '',
      '| per written answer | p50 | p95 | max |',
      '| --- | --- | --- | --- |',
      `| first generated token (ms, prompt included) | ${report.first_token_ms.p50} | ${report.first_token_ms.p95} | ${report.first_token_ms.max} |`,
      `| decoding (tokens/s) | ${report.tokens_per_second.p50} | ${report.tokens_per_second.p95} | ${report.tokens_per_second.max} |`,
      `| tokens | ${report.tokens.p50} | ${report.tokens.p95} | ${report.tokens.max} |`,
      `| quoted answer shown → written answer done (ms) | ${report.wait_after_quoted_ms.p50} | ${report.wait_after_quoted_ms.p95} | ${report.wait_after_quoted_ms.max} |`,
      '',
    ].join('\n');
    console.log(md);
    const out = path.resolve(values.out!);
    await mkdir(out, { recursive: true });
    const stem = path.join(out, `${report.date.slice(0, 10)}-generation`);
    await writeFile(`${stem}.json`, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(`${stem}.md`, md);
  } finally {
    await browser.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
