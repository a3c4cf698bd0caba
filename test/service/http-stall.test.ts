/**
 * The HTTP client's timeout counts the process's run time, as the sockets' watchdogs do: a
 * process starved of CPU right after the service answered (a synchronous stall longer than the
 * timeout, here in the fake service's own handler, in this process) reads the answer waiting for
 * it instead of timing out. Node runs a timer that came due during the stall before it reads the
 * socket: a wall-clock timeout fires first and throws the answer away. A service that does not
 * answer still times out.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TransportError } from '../../src/service/index.ts';
import { json, startFake, type Fake } from '../helpers/fake-service.ts';
import { stall } from '../helpers/stall.ts';

const TIMEOUT_MS = 200;
/** Longer than the timeout: the process is off the CPU (a synchronous task) while the answer waits. */
const STALL_MS = 3 * TIMEOUT_MS;

let fake: Fake;
before(async () => {
  fake = await startFake({
    'GET /denoise': (_req, res) => {
      json(res, 200, []);
      // The answer is on its way; this process then does nothing else for STALL_MS.
      stall(STALL_MS);
    },
    'GET /models': () => {
      // Never answers.
    },
  });
});
after(() => fake?.close());

test('an answer that arrived while the process stalled past the timeout is read, not timed out', async () => {
  const list = await fake.client().listDenoise({}, { timeoutMs: TIMEOUT_MS, maxRetries: 0 });
  assert.deepEqual(list, []);
});

test('a service that never answers still times out', async () => {
  await assert.rejects(fake.client().listModels({ timeoutMs: TIMEOUT_MS, maxRetries: 0 }), (e: unknown) => e instanceof TransportError && e.kind === 'timeout');
});
