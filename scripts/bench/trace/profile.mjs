/**
 * A preload that CPU-profiles a bench server (`NODE_OPTIONS="--import ./scripts/bench/trace/profile.mjs"`):
 * Node refuses `--cpu-prof` in NODE_OPTIONS, which is how bench/server.ts and crowd.ts pass options to the
 * servers they start. Samples every 1 ms from the first line; at exit writes `<dir>/profile-<pid>.cpuprofile`
 * (dir: KB_TRACE_DIR, default the working directory), readable by Chrome's DevTools. The in-process
 * inspector answers `post` synchronously, so the profile is still written from the exit handler.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 1000 });
session.post('Profiler.start');
process.on('exit', () => {
  session.post('Profiler.stop', (error, result) => {
    if (error) return;
    const file = path.join(process.env.KB_TRACE_DIR ?? '.', `profile-${process.pid}.cpuprofile`);
    writeFileSync(file, JSON.stringify(result.profile));
  });
});
