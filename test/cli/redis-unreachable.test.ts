import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { mapLimit, SIDE_BY_SIDE } from '../helpers/parallel.ts';
import { hiwar } from '../helpers/processes.ts';

/** A port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

// The helper's 60 s limit is generous: the point is that the command ends at all (the worker used
// to retry for ever).
test('status and worker with no Redis listening end with the cause and how to start one', async () => {
  const url = `redis://127.0.0.1:${await closedPort()}`;
  const [status, worker] = await mapLimit([['status'], ['worker', '--recordings', '/tmp/hiwar-no-redis']], SIDE_BY_SIDE, (args) => hiwar(args, { REDIS_URL: url }));
  for (const [name, run, prefix] of [['status', status!, 'cannot read the cluster from'], ['worker', worker!, 'cannot reach Redis at']] as const) {
    assert.equal(run.code, 1, `${name}: ${run.stderr}`);
    assert.equal(run.stderr.split('\n').filter(Boolean).length, 1, `${name}: one line\n${run.stderr}`);
    assert.ok(run.stderr.startsWith(`hiwar ${name}: ${prefix} ${url}: connect ECONNREFUSED`), `${name}: the cause, not "Connection is closed."\n${run.stderr}`);
    assert.match(run.stderr, /is a Redis server running there\? .*redis-server --daemonize yes/);
  }
  assert.doesNotMatch(worker!.stdout, /analytics worker error/, 'the worker stopped before retrying');
});
