import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { pad, voiced } from '../helpers/sandbox.ts';
import { FarEnd } from './far-end.ts';
import { telnyxProtocol } from './protocols.ts';
import { wholeCall } from './scenario.ts';
import { startServe, type Served } from './serve.ts';

describe('Telnyx media streaming against hiwar serve', () => {
  let s: Served;
  let lines: { balance: Int16Array };
  const keys = generateKeyPairSync('ed25519');
  const publicKey = (keys.publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(12).toString('base64');
  before(async () => {
    s = await startServe({ speed: 2, secrets: { telnyx: publicKey } });
    lines = {
      balance: pad(await voiced(s.sandbox.client, 'كم رصيدي', 8000), 8000, 0.2, 1.0)
    };
  });
  after(() => s.close());

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${s.url}/telephony/telnyx`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  const signed = (body: string, at = Math.floor(Date.now() / 1000)) => ({
    'telnyx-timestamp': String(at),
    'telnyx-signature-ed25519': sign(null, Buffer.from(`${at}|${body}`), keys.privateKey).toString('base64'),
  });

  test('TeXML answer only with a valid Ed25519 signature', async () => {
    const body = 'CallSid=v3:abc&From=%2B971500000001&To=%2B97140000000';
    assert.equal((await post(body)).status, 403, 'unsigned');
    assert.equal((await post(body, { ...signed(body), 'telnyx-signature-ed25519': 'AAAA' })).status, 403, 'bad signature');
    assert.equal((await post(body, signed(body, Math.floor(Date.now() / 1000) - 3600))).status, 403, 'replayed an hour later');
    const ok = await post(body, signed(body));
    assert.equal(ok.status, 200);
    const xml = await ok.text();
    assert.match(xml, /<Connect action="[^"]+"><Stream url="ws:\/\/[^"]+\/telephony\/telnyx\/stream\/[^"]+" track="inbound_track" bidirectionalMode="rtp" bidirectionalCodec="PCMU"\/><\/Connect>/);
  });

  test('a whole call with frames delivered out of order: answer, DTMF, barge-in with clear, hang-up', async () => {
    const body = 'CallSid=v3:call-1&From=%2B971500000001';
    const xml = await (await post(body, signed(body))).text();
    const url = /<Stream url="([^"]+)"/.exec(xml)![1]!;
    const proto = telnyxProtocol('v3:call-1', { swapPairs: true });
    const call = await wholeCall(s, new FarEnd(url, proto, s.clock), 'v3:call-1', lines);
    assert.equal(call.transport.call.from, '+971500000001');
    assert.equal(call.transport.call.parameters.client_state, 'YWJj');
    assert.equal(call.transport.stats.late, 0, 'every swapped frame was put back in order, none dropped');
    assert.deepEqual(proto.problems, []);
  });
});
