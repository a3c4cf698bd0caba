/**
 * A platform's REST answer (a dial) read after this process stalled past the request's timeout:
 * the timeout counts run time, so the call the platform placed is known by its id rather than
 * taken for one never placed (a campaign would dial that person again). A platform that never
 * answers still times out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { platformRequest } from '../../../transports/telephony/outbound/http.ts';
import { DialError } from '../../../transports/telephony/outbound/types.ts';
import { localServer, stall } from '../../helpers/stall.ts';

const TIMEOUT_MS = 200;
/** Longer than the timeout: this process is off the CPU (a synchronous task) while the answer waits. */
const STALL_MS = 3 * TIMEOUT_MS;

const platform = localServer((req, res) => {
  req.resume();
  if (req.url === '/silent') return;
  res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid: 'CA1' }));
  stall(STALL_MS);
});

test('a dial answered while the process stalled past the timeout is read', async () => {
  const body = await platformRequest('twilio', `${platform.url()}/Calls.json`, { headers: {}, body: 'To=%2B966500000001', timeoutMs: TIMEOUT_MS }, []);
  assert.equal(body.sid, 'CA1');
});

test('a platform that never answers still times out, as out of reach', async () => {
  await assert.rejects(platformRequest('twilio', `${platform.url()}/silent`, { headers: {}, timeoutMs: TIMEOUT_MS }, []), (e: unknown) => e instanceof DialError && e.status === 0 && /timed out|timeout/.test(e.message));
});
