/**
 * The real server and the real ingestion CLI as child processes, for the crash and shutdown tests: started
 * as users start them (`server/runtime/node/start.ts`, `scripts/ingest.ts`) but with `node --import tsx`, so the child's
 * pid is the process itself and `kill -9` hits the database's owner, not a launcher in between. A question
 * is asked over HTTP exactly as the widget asks it, with each SSE event reported as it arrives.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { inject } from 'vitest';
import { join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const TEST_MODEL_ENV = {
  KB_EMBED_MODEL: 'test-double/bert-384',
  KB_MODEL_DIR: join(ROOT, 'test/fixtures/models'),
  KB_JWT_SECRET: 'crash-secret-crash-secret-crash-0123456',
};

export interface Child {
  process: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** What it printed on stdout alone. */
  stdout(): string;
  /** Resolves once a line matches (rejects if the process exits first or `timeoutMs` passes). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnScript(script: string, args: string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...TEST_MODEL_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout!.on('data', (data: Buffer) => void (stdout += data.toString()));
  const listeners = new Set<() => void>();
  const onData = (data: Buffer) => {
    output += data.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    process: child,
    output: () => output,
    stdout: () => stdout,
    exited,
    waitFor(pattern, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (!match) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${pattern}:\n${output}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        void exited.then(({ code, signal }) => {
          if (!listeners.has(check)) return;
          done();
          reject(new Error(`exited (${signal ?? code}) before ${pattern}:\n${output}`));
        });
        listeners.add(check);
        check();
      });
    },
  };
}

export interface ServerChild extends Child {
  url: string;
}

/** `server/runtime/node/start.ts` on `dataDir` (a first start ingests the demo knowledge base); resolves when it serves. */
export async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<ServerChild> {
  const child = spawnScript('server/runtime/node/start.ts', [], {
    PORT: '0',
    KB_DATA_DIR: dataDir,
    KB_RATE_LIMIT: '100000',
    KB_SIGNUP_LIMIT: '0',
    ...env,
  });
  const [, url] = await child.waitFor(/kb-chat is running at (http:\/\/\S+?)\/? /);
  return { ...child, url: url! };
}

/**
 * A data directory as a first start leaves it (migrations applied, the demo knowledge base ingested, closed
 * cleanly), copied to `target` from the one seeded.setup.ts made for the whole run.
 */
export async function seededDataDir(target: string): Promise<string> {
  await cp(inject('seededDataDir'), target, { recursive: true });
  return target;
}

export async function signIn(base: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/anonymous`, { method: 'POST' });
  if (!res.ok) throw new Error(`sign-in: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export interface Asked {
  status: number | null;
  /** SSE event names in order; a JSON body (refusal, error) is one pseudo-event `json:<type or code>`. */
  events: string[];
  /** The stored answer's id, from `answer_end`. */
  answerId: string | null;
  text: string;
  error?: string;
}

/** POST /api/chat and read it to its end (or until the connection dies); `onEvent` sees each SSE event. */
export async function ask(
  base: string,
  token: string,
  body: { message: string; message_id: string; session_id?: string },
  onEvent: (name: string) => void = () => {},
  headers: Record<string, string> = {},
): Promise<Asked> {
  const asked: Asked = { status: null, events: [], answerId: null, text: '' };
  try {
    const res = await fetch(`${base}/api/chat`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    asked.status = res.status;
    if (!res.headers.get('content-type')?.includes('text/event-stream')) {
      const json = (await res.json()) as { type?: string; error?: { code: string } };
      asked.events.push(`json:${json.type ?? json.error?.code}`);
      return asked;
    }
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: ?(.*)$/m.exec(block)?.[1];
        const data = /^data: ?(.*)$/m.exec(block)?.[1];
        if (!name) continue;
        asked.events.push(name);
        if (name === 'answer_delta') asked.text += (JSON.parse(data!) as { text: string }).text;
        if (name === 'answer_end') asked.answerId = (JSON.parse(data!) as { message_id: string }).message_id;
        onEvent(name);
      }
    }
  } catch (error) {
    asked.error = String(error);
  }
  return asked;
}

/** Questions the demo knowledge base answers in keyword mode (no embedding), from the docs-QA set. */
export const DEMO_QUESTIONS = [
  'How do I add the widget to my website?',
  'Which browsers are supported?',
  'How do I change the port the server runs on?',
  'Which file types can I index?',
  'How long can an answer be?',
];
