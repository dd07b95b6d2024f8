/**
 * CPU time of processes from Linux's accounting (/proc/<pid>/stat: user + system), for the benches that
 * must say what a request used rather than how long it waited for a core on a shared machine. Linux only:
 * elsewhere every figure reads 0.
 */
import { readFile } from 'node:fs/promises';
import type pg from 'pg';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

async function statFields(pid: number): Promise<string[] | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  // Fields after the command name (which may hold spaces), so index 0 is field 3 (state).
  return stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : null;
}

/** user + system CPU seconds of a process, or 0 when it is gone. */
export async function cpuSeconds(pid: number): Promise<number> {
  const fields = await statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND : 0; // utime, stime (14, 15)
}

/**
 * The whole PostgreSQL server's CPU seconds: the postmaster's own, that of its children that have ended
 * (cutime + cstime: a backend whose connection closed is counted there once reaped) and that of those
 * running. Counting the server rather than the connections of one database keeps backends that came and
 * went during a run (a pool's idle connections are closed after 10 s) and the background workers
 * (WAL writer, checkpointer) that the run's writes keep busy.
 */
export async function postgresCpuSeconds(admin: pg.Client): Promise<number> {
  const { rows } = await admin.query<{ pid: number }>('select pg_backend_pid() as pid');
  const backend = await statFields(rows[0]!.pid);
  if (!backend) return 0;
  const postmaster = Number(backend[1]); // ppid (field 4)
  const own = await statFields(postmaster);
  if (!own) return 0;
  const reaped = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) / TICKS_PER_SECOND;
  const children = await readFile(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').catch(() => '');
  const running = await Promise.all(
    children
      .split(' ')
      .filter(Boolean)
      .map((pid) => cpuSeconds(Number(pid))),
  );
  return reaped + running.reduce((a, b) => a + b, 0);
}
