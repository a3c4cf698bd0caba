/**
 * Two instances behind one load balancer share the spent-token ledger in Redis: a media token
 * spent on one is refused on the other, and while Redis is down tokens are refused (503), not
 * accepted unchecked.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { connectTokenLedger } from '../../src/cluster/token-ledger.ts';
import { generateKey } from '../../src/sandbox/keys.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { startServe, twilioCall, waitFor, type Served } from '../telephony/serve.ts';
import { twilioProtocol } from '../telephony/twilio-protocol.ts';
import { upgradeStatus } from '../helpers/upgrade.ts';

let redis: TestRedis;
let sandbox: Running;
let a: Served;
let b: Served;
const ledgers: { close(): Promise<void> }[] = [];

before(async () => {
  redis = await startRedis();
  sandbox = await runSandbox({ keys: [{ key: generateKey(), concurrency: 16 }] });
  const ledger = async () => {
    const l = await connectTokenLedger(redis.url, () => {});
    ledgers.push(l);
    return l;
  };
  // As two `hiwar serve --open` instances with one HIWAR_MEDIA_SECRET and one REDIS_URL.
  a = await startServe({ sandbox, tokenSecret: 'shared-media-secret', ledger: await ledger() });
  b = await startServe({ sandbox, tokenSecret: 'shared-media-secret', ledger: await ledger() });
});
after(async () => {
  await a.close();
  await b.close();
  for (const l of ledgers) await l.close();
  await sandbox.close();
  await redis.stop();
});

test('a token spent on one instance is refused on the other; with Redis gone, tokens are refused (503)', async () => {
  const { streamUrl } = await twilioCall(a, 'CA-cluster');
  const url = streamUrl!.replace(/&amp;/g, '&');
  const ws = new WebSocket(url);
  ws.on('error', () => {});
  await once(ws, 'open');
  for (const m of twilioProtocol('CA-cluster').opening()) ws.send('text' in m ? m.text : m.binary);
  await waitFor(() => a.calls.some((c) => c.transport.call.callId === 'CA-cluster'), 'the call started on A');
  const onB = url.replace(new URL(a.url).host, new URL(b.url).host);
  assert.equal(await upgradeStatus(onB), 403, 'the same token on B');
  ws.close();
  await waitFor(() => a.server.calls.active === 0, 'the call ended');

  const fresh = (await twilioCall(b, 'CA-while-down')).streamUrl!.replace(/&amp;/g, '&');
  await redis.stop();
  assert.equal(await upgradeStatus(fresh), 503, 'the ledger cannot say the token is unspent');
});
