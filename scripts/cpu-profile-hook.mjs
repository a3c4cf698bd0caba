// Loaded into every Node process of a profiled run (scripts/cpu-profile.mjs record, through
// NODE_OPTIONS=--import): V8's sampling profiler from the first module to the process's end,
// written as DIR/<pid>-<time>.cpuprofile with the process's argv and working directory.
// A process ended by SIGTERM or SIGINT that has no handler of its own writes its profile, then
// dies by the same signal (its parent sees what it would have seen); one with a handler of its
// own (a server draining its calls) writes it when it exits.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

/** Microseconds between samples: 2 ms keeps the cost small over a whole suite's processes. */
const INTERVAL_US = 2000;
const dir = process.env.HIWAR_CPU_PROFILE_DIR;
if (dir && isMainThread) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: INTERVAL_US });
  session.post('Profiler.start');
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    // The same thread's session answers synchronously, so this works in an 'exit' listener.
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(dir, `${process.pid}-${Date.now()}.cpuprofile`), JSON.stringify({ argv: process.argv, cwd: process.cwd(), ...result.profile }));
    });
  };
  process.on('exit', write);
  for (const signal of ['SIGTERM', 'SIGINT']) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return;
      write();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
