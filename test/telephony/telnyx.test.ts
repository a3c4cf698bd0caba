import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { pad, voiced } from '../helpers/sandbox.ts';
import { FarEnd } from './far-end.ts';
import { decode, encode } from '../../transports/telephony/codec.ts';
import { b64, fromB64, json, parseJson, type WireMessage } from '../../transports/telephony/provider.ts';
import { platformFixture } from './fixture-files.ts';
import { telnyxProtocol } from './protocols.ts';
import { wholeCall } from './scenario.ts';
import { agentTurns, startServe, waitFor, type Served } from './serve.ts';

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
    assert.match(xml, /<Connect><Stream url="ws:\/\/[^"]+\/telephony\/telnyx\/stream\/[^"]+" track="inbound_track" bidirectionalMode="rtp" bidirectionalCodec="PCMU"\/><\/Connect><Redirect method="POST">[^<]+<\/Redirect><\/Response>$/);
  });

  test("the TeXML answer uses only what Telnyx documents: <Connect> without attributes, then a <Redirect> that asks what follows the stream", async () => {
    const doc = platformFixture('telnyx', 'texml.json');
    const body = 'CallSid=v3:texml-doc&From=%2B971500000001';
    const xml = await (await post(body, signed(body))).text();
    const elements = [...xml.matchAll(/<(\w+)((?:\s+\w+="[^"]*")*)\s*\/?>/g)].map(([, name, attrs]) => ({
      name: name!,
      attributes: Object.fromEntries([...attrs!.matchAll(/(\w+)="([^"]*)"/g)].map(([, k, v]) => [k!, v!])),
    }));
    assert.deepEqual(elements.map((e) => e.name), ['Response', 'Connect', 'Stream', 'Redirect']);
    const [, connect, stream, redirect] = elements;
    // Twilio's <Connect action> is no TeXML attribute: the stream's end went unheard and the transfer with it.
    assert.deepEqual(Object.keys(connect!.attributes), doc.connect.attributes);
    for (const [k, v] of Object.entries(stream!.attributes)) {
      assert.ok(k in doc.stream.attributes, `<Stream ${k}> is documented`);
      const options = doc.stream.attributes[k];
      if (options) assert.ok(options.includes(v), `<Stream ${k}="${v}"> is one of ${options.join(', ')}`);
    }
    assert.ok(doc.redirect.attributes.method.includes(redirect!.attributes.method), 'the Redirect method is documented');
    // What Telnyx asks when the stream stops: the agent let go, so the call hangs up.
    const next = /<Redirect method="POST">([^<]+)<\/Redirect>/.exec(xml)![1]!.replace(/&amp;/g, '&');
    assert.match(next, /\/telephony\/telnyx\/after\/[^/?]+$/);
    const after = await fetch(next, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...signed(body) }, body });
    assert.equal(after.status, 200);
    assert.equal(await after.text(), '<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>');
  });

  test('a Call Control call (JSON webhook) has no built-in transfer: nothing asks the TeXML action URL, so the agent is told at once', async () => {
    const body = JSON.stringify({ data: { event_type: 'call.initiated', record_type: 'event', payload: { call_control_id: 'v3:cc-1', direction: 'incoming', from: '+971500000001', to: '+97140000000', state: 'parked' } } });
    const res = await fetch(`${s.url}/telephony/telnyx`, { method: 'POST', headers: { 'content-type': 'application/json', ...signed(body) }, body });
    const { stream_url: url } = (await res.json()) as { stream_url: string };
    const far = new FarEnd(url, telnyxProtocol('v3:cc-1'), s.clock);
    try {
      await far.start();
      await waitFor(() => s.calls.some((c) => c.transport.call.callId === 'v3:cc-1'), 'the call started');
      const call = s.calls.find((c) => c.transport.call.callId === 'v3:cc-1')!;
      // It transferred "after the stream" as a TeXML call does: the stream closed, the caller was left on a parked call.
      assert.equal(call.transport.transfer, undefined);
      assert.equal(call.transport.call.parameters.telnyx_application, 'call-control');
      assert.equal(call.transport.call.parameters.From, '+971500000001', 'the event\'s numbers ride with the token');
    } finally {
      far.hangup();
    }
    const texml = 'CallSid=v3:texml-1';
    const xml = await (await post(texml, signed(texml))).text();
    const far2 = new FarEnd(/<Stream url="([^"]+)"/.exec(xml)![1]!, telnyxProtocol('v3:texml-1'), s.clock);
    try {
      await far2.start();
      await waitFor(() => s.calls.some((c) => c.transport.call.callId === 'v3:texml-1'), 'the TeXML call started');
      assert.equal(typeof s.calls.find((c) => c.transport.call.callId === 'v3:texml-1')!.transport.transfer, 'function', 'a TeXML call transfers through its action URL');
    } finally {
      far2.hangup();
    }
  });

  test('a start at 96 kHz L16 (a rate the voice cannot produce): converted at the edge, the agent speaks at 96 kHz on the wire', async () => {
    const body = 'CallSid=v3:hi-rate';
    const xml = await (await post(body, signed(body))).text();
    const url = /<Stream url="([^"]+)"/.exec(xml)![1]!;
    const L16 = { codec: 'l16', sampleRate: 96_000, frameMs: 20, endian: 'be' } as const;
    const base = telnyxProtocol('v3:hi-rate');
    const proto = {
      ...base,
      rate: 96_000,
      opening: (): WireMessage[] => [
        json({ event: 'connected', version: '1.0.0' }),
        json({ event: 'start', stream_id: 's-hi', start: { call_control_id: 'v3:hi-rate', media_format: { encoding: 'L16', sample_rate: 96_000, channels: 1 } } }),
      ],
      audio: (pcm: Int16Array, seq: number) => [json({ event: 'media', stream_id: 's-hi', media: { track: 'inbound', chunk: String(seq), payload: b64(encode(L16, pcm)) } })],
      read: (msg: WireMessage) => {
        const m = parseJson(msg);
        if (m?.event === 'media') return [{ type: 'audio' as const, pcm: decode(L16, fromB64(m.media.payload)) }];
        return base.read(msg);
      },
    };
    const far = new FarEnd(url, proto, s.clock);
    try {
      await far.start();
      await waitFor(() => s.calls.some((c) => c.transport.call.callId === 'v3:hi-rate'), 'the call started');
      const call = s.calls.find((c) => c.transport.call.callId === 'v3:hi-rate')!;
      await waitFor(() => agentTurns(call).length >= 1, 'the greeting was spoken', undefined, () => JSON.stringify(call.events.filter((e) => e.type === 'error')));
      // A slow synthesis falling back to HTTP on a loaded machine is an error event too: not a refused rate.
      assert.equal(call.events.filter((e) => e.type === 'error').filter((e) => !/switched to HTTP/.test(e.message)).length, 0, 'synthesis was never asked for 96 kHz');
      assert.equal(call.transport.inputRate, 48_000, 'the session hears 48 kHz');
      assert.equal(call.transport.output.sampleRate, 48_000, 'and speaks at 48 kHz: every synthesis path (HTTP included, 8-48 kHz) can produce it');
      const frames = far.said.filter((x) => x.type === 'audio') as { pcm: Int16Array }[];
      assert.ok(frames.length > 20 && frames.every((f) => f.pcm.length === 96_000 / 50), 'agent audio in 20 ms frames at 96 kHz on the wire');
      assert.ok(frames.filter((f) => f.pcm.some((v) => Math.abs(v) > 2000)).length > 10, 'it is speech');
    } finally {
      far.hangup();
    }
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
