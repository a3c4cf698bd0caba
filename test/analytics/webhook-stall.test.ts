/**
 * A webhook delivery the receiver answered while this process stalled past the timeout: the
 * timeout counts run time, so the delivery is done, not failed as "no answer" (the runner would
 * retry it, and the receiver would get the summary twice). A receiver that never answers still
 * times out, retryable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnalyticsError } from '../../src/analytics/failures.ts';
import { postWebhook } from '../../src/analytics/webhook.ts';
import { localServer, stall } from '../helpers/stall.ts';

const TIMEOUT_MS = 200;
/** Longer than the timeout: this process is off the CPU (a synchronous task) while the answer waits. */
const STALL_MS = 3 * TIMEOUT_MS;

const received: string[] = [];
const receiver = localServer((req, res) => {
  req.resume();
  if (req.url === '/silent') return;
  received.push(String(req.headers['x-hiwar-delivery']));
  res.writeHead(204).end();
  // The receiver's answer is on its way; this process then does nothing else for STALL_MS.
  stall(STALL_MS);
});

test('a delivery answered while the process stalled past the timeout is delivered, once', async () => {
  await postWebhook({ url: `${receiver.url()}/hook`, timeoutMs: TIMEOUT_MS }, 'd-1', { ok: true });
  assert.deepEqual(received, ['d-1']);
});

test('a receiver that never answers still times out, retryable', async () => {
  await assert.rejects(postWebhook({ url: `${receiver.url()}/silent`, timeoutMs: TIMEOUT_MS }, 'd-2', {}), (e: unknown) => e instanceof AnalyticsError && e.retryable && /no answer/.test(e.message));
});
