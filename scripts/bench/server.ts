/**
 * The real server as a child process, as users run it (server/runtime/node/start.ts, not `npm start`, which would
 * rebuild the widget first): one Node process, PGlite inside it, on 127.0.0.1 and a free port. The rate
 * limit is raised so the bench measures speed, not the limiter. Memory is read from /proc (Linux).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { BENCH_MODEL, BENCH_MODEL_DIR } from './kb.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const READY = /kb-chat is running at (\S+)/;
const NODE_ENTRY = 'server/runtime/node/start.ts';

export interface BenchServer {
  url: string;
  pid: number;
  startup_seconds: number;
  /** Resident memory now and at its peak (kB → bytes), from /proc/<pid>/status; null off Linux. */
  memory(): Promise<{ rss_bytes: number | null; peak_rss_bytes: number | null }>;
  /** The server's open file descriptors by kind (socket, pipe, file, …), from /proc/<pid>/fd; null off Linux. */
  handles(): Promise<Record<string, number> | null>;
  /** SIGTERM and wait for the exit; resolves with how long the server took to exit and its exit code. */
  stop(): Promise<{ seconds: number; code: number | null; signal: string | null }>;
}

/**
 * `root`: the checkout whose Node entry runs (default this one; first-visit measures older commits too, whose
 * entry was scripts/start.ts before it moved to server/runtime/node/start.ts).
 */
export async function startServer(
  dataDir: string,
  timeoutMs = 300_000,
  env: Record<string, string> = {},
  root = ROOT,
): Promise<BenchServer> {
  const port = await freePort();
  const started = performance.now();
  // `node --import tsx` rather than `npx tsx`: the child is then the server itself, so its pid is the
  // process whose memory is measured (tsx's CLI would put a second Node process in between).
  const entry = existsSync(path.join(root, NODE_ENTRY)) ? NODE_ENTRY : 'scripts/start.ts';
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    env: {
      ...process.env,
      KB_DATA_DIR: dataDir,
      KB_EMBED_MODEL: BENCH_MODEL,
      KB_MODEL_DIR: path.resolve(ROOT, BENCH_MODEL_DIR),
      PORT: String(port),
      KB_RATE_LIMIT: '1000000',
      // Every bench visitor signs up from 127.0.0.1: the per-IP sign-up limit is not what is measured.
      KB_SIGNUP_LIMIT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const remember = (chunk: Buffer) => {
    output.push(...chunk.toString().split('\n').filter(Boolean));
    output.splice(0, Math.max(0, output.length - 40));
  };
  child.stdout!.on('data', remember);
  child.stderr!.on('data', remember);
  // A bench stopped half-way (an error, Ctrl-C) must not leave a server running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`the server did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n--- server output ---\n${output.join('\n')}`));
    };
    const exitedEarly = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(new Error(`the server exited (${signal ?? code}) before it was ready`));
    child.once('exit', exitedEarly);
    // Only until ready: the server prints more later (its shutdown), and other 'exit' listeners (stop()'s)
    // must not be touched then.
    const ready = () => {
      const match = output.map((line) => READY.exec(line)).find(Boolean);
      if (!match) return;
      clearTimeout(timer);
      child.removeListener('exit', exitedEarly);
      child.stdout!.removeListener('data', ready);
      resolve(match[1]!.replace(/\/$/, ''));
    };
    child.stdout!.on('data', ready);
  });
  // If the server names its own pid, trust that; otherwise the child is the server (see above).
  const printed = output.map((line) => /\bpid[ =:]+(\d+)/i.exec(line)).find(Boolean);
  const pid = printed ? Number(printed[1]) : child.pid!;

  return {
    url,
    pid,
    startup_seconds: Math.round((performance.now() - started) / 100) / 10,
    memory: () => procMemory(pid),
    handles: () => procHandles(pid),
    stop: () => stopChild(child),
  };
}

async function procMemory(pid: number): Promise<{ rss_bytes: number | null; peak_rss_bytes: number | null }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : null;
  };
  return { rss_bytes: kb('VmRSS'), peak_rss_bytes: kb('VmHWM') };
}

async function procHandles(pid: number): Promise<Record<string, number> | null> {
  const names = await readdir(`/proc/${pid}/fd`).catch(() => null);
  if (!names) return null;
  const kinds: Record<string, number> = {};
  for (const name of names) {
    const target = await readlink(`/proc/${pid}/fd/${name}`).catch(() => null);
    if (target === null) continue; // closed while we looked
    // socket:[123], pipe:[456], anon_inode:[eventfd], or a path (a file of the database, a log…).
    const kind = /^(\w+):/.exec(target)?.[1] ?? 'file';
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}

/** SIGTERM (the server drains, closes the database and exits), SIGKILL after 30 s. */
function stopChild(child: ChildProcess): Promise<{ seconds: number; code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ seconds: 0, code: child.exitCode, signal: child.signalCode });
  }
  const started = performance.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ seconds: Math.round((performance.now() - started) / 100) / 10, code, signal });
    });
    child.kill('SIGTERM');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
