// Loaded into every Node process of a profiled run (scripts/cpu-profile.mjs record, through
// NODE_OPTIONS=--import): V8's sampling profiler from the first module to the process's end,
// written as DIR/<pid>-<time>.cpuprofile with the process's argv, working directory, the
// sampling interval and the process's CPU time (all its threads) at its end.
// A process ended by SIGTERM that has no handler of its own writes its profile, then dies by the
// same signal (its parent sees what it would have seen); one with a handler of its own (a server
// draining its calls) writes it when it exits. SIGINT is left alone: a listener cannot tell a
// real signal from `process.emit('SIGINT')`, which the campaign tests use to stop a campaign
// that may still run (with no listener that does nothing; here it would end the process).
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
      if (!err) writeFileSync(join(dir, `${process.pid}-${Date.now()}.cpuprofile`), JSON.stringify({ argv: process.argv, cwd: process.cwd(), intervalUs: INTERVAL_US, cpuUsage: process.cpuUsage(), ...result.profile }));
    });
  };
  process.on('exit', write);
  const onTerm = () => {
    if (process.listenerCount('SIGTERM') > 1) return;
    write();
    process.removeListener('SIGTERM', onTerm);
    process.kill(process.pid, 'SIGTERM');
  };
  process.on('SIGTERM', onTerm);
}
