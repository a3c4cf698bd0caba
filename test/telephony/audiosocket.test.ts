import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it, test } from 'node:test';
import { createLogger } from '../../src/session/logger.ts';
import { pad, voiced } from '../helpers/sandbox.ts';
import { AudioSocketFarEnd } from './audiosocket-far-end.ts';
import { agentTurns, startServe, waitFor, type Served, type ServedCall } from './serve.ts';
import type { ProviderConnection } from '../../transports/telephony/provider.ts';
import { startOf } from './wire.ts';
import { AudioSocketConnection } from '../../transports/telephony/audiosocket.ts';
import { FrameReader, encodeFrame, uuidFromBytes, uuidToBytes } from '../../transports/telephony/audiosocket-frames.ts';
import { allowList, peerAllowed, startAudioSocketServer, type AudioSocketServer } from '../../transports/telephony/audiosocket-server.ts';

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('audiosocket framing', () => {
  it('encodes type + 2-byte big-endian length + payload', () => {
    assert.deepEqual([...encodeFrame(0x10, new Uint8Array(320)).subarray(0, 3)], [0x10, 0x01, 0x40]);
    assert.deepEqual([...encodeFrame(0x00)], [0, 0, 0]);
    assert.throws(() => encodeFrame(0x10, new Uint8Array(70000)));
  });

  it('cuts a byte stream into frames whatever the chunking', () => {
    const stream = Buffer.concat([encodeFrame(0x01, uuidToBytes(UUID)), encodeFrame(0x10, new Uint8Array(320).fill(7)), encodeFrame(0x03, Buffer.from('5')), encodeFrame(0x00)]);
    for (const size of [1, 2, 3, 7, 100, stream.length]) {
      const r = new FrameReader();
      const frames: Buffer[] = [];
      for (let i = 0; i < stream.length; i += size) frames.push(...r.push(stream.subarray(i, i + size)));
      assert.deepEqual(frames.map((f) => f[0]), [0x01, 0x10, 0x03, 0x00], `chunks of ${size}`);
      assert.equal(frames[1]!.length, 323);
      assert.equal(r.buffered, 0);
    }
  });

  it('round-trips the call UUID', () => {
    assert.equal(uuidFromBytes(uuidToBytes(UUID)), UUID);
    assert.throws(() => uuidFromBytes(new Uint8Array(3)));
  });
});

describe('audiosocket connection', () => {
  it('starts on the first audio frame with the UUID as call id and the rate of the frame type', () => {
    const c: ProviderConnection = new AudioSocketConnection();
    assert.equal(c.parse({ binary: encodeFrame(0x10, new Uint8Array(320)) })[0]!.type, 'invalid', 'audio before UUID');
    assert.deepEqual(c.parse({ binary: encodeFrame(0x01, uuidToBytes(UUID)) }), []);
    const items = c.parse({ binary: encodeFrame(0x12, new Uint8Array(640)) });
    const s = startOf(items);
    assert.equal(s.call.callId, UUID);
    assert.equal(s.input.sampleRate, 16000);
    assert.equal(items[1]?.type === 'audio' && items[1].payload.byteLength, 640);
    assert.equal(c.parse({ binary: encodeFrame(0x10, new Uint8Array(320)) })[0]!.type, 'invalid', 'rate change mid-call');
    assert.deepEqual(c.parse({ binary: encodeFrame(0x03, Buffer.from('#')) }), [{ type: 'dtmf', digit: '#' }]);
    assert.deepEqual(c.parse({ binary: encodeFrame(0x00) }), [{ type: 'stop', reason: 'hangup' }]);
    assert.deepEqual(c.parse({ binary: encodeFrame(0xff, new Uint8Array([1])) }), [{ type: 'stop', reason: 'hangup' }]);
    assert.equal(c.parse({ binary: encodeFrame(0xff, new Uint8Array([2])) })[0]!.type, 'invalid');
    assert.equal(c.parse({ binary: encodeFrame(0x42, new Uint8Array(2)) })[0]!.type, 'invalid');
  });

  it('writes agent audio in the call frame type and hangs up with a 0x00 frame; no marks, no clear', () => {
    const c: ProviderConnection = new AudioSocketConnection();
    c.parse({ binary: encodeFrame(0x01, uuidToBytes(UUID)) });
    c.parse({ binary: encodeFrame(0x10, new Uint8Array(320)) });
    const out = (c.encodeAudio(new Uint8Array(320)) as { binary: Uint8Array }).binary;
    assert.deepEqual([...out.subarray(0, 3)], [0x10, 0x01, 0x40]);
    assert.deepEqual([...(c.hangup!()[0] as { binary: Uint8Array }).binary], [0, 0, 0]);
    assert.equal(c.mark, undefined);
    assert.equal(c.clear, undefined);
  });

  it('allows listed peers only', () => {
    const list = allowList(['127.0.0.0/8', '::1', '10.1.0.0/16', '192.0.2.7', 'fd00::/8']);
    for (const ok of ['127.0.0.1', '::ffff:127.0.0.1', '::1', '10.1.2.3', '::ffff:10.1.9.9', '192.0.2.7', 'fd00::1']) assert.ok(peerAllowed(list, ok), ok);
    for (const no of ['10.2.0.1', '192.0.2.8', '8.8.8.8', 'fe80::1', undefined]) assert.ok(!peerAllowed(list, no), String(no));
    assert.throws(() => allowList(['10.0.0.0/40']));
  });
});

describe('AudioSocket against hiwar serve', () => {
  let s: Served;
  let as: AudioSocketServer;
  let balance: Int16Array;
  let lostCard: Int16Array;
  let n = 0;
  before(async () => {
    s = await startServe({ speed: 3 });
    as = await startAudioSocketServer(s.server.host, { port: 0, media: { clock: s.clock } });
    s.server.use(as);
    balance = pad(await voiced(s.sandbox.client, 'كم رصيدي', 8000), 8000, 0.2, 1.0);
    lostCard = pad(await voiced(s.sandbox.client, 'بطاقتي ضاعت', 8000), 8000, 0.2, 1.0);
  });
  after(() => s.close());

  async function dial(): Promise<{ far: AudioSocketFarEnd; call: ServedCall }> {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    const far = new AudioSocketFarEnd(as.port, uuid, s.clock);
    await far.start();
    await waitFor(() => s.calls.some((c) => c.transport.call.callId === uuid), 'the call started');
    return { far, call: s.calls.find((c) => c.transport.call.callId === uuid)! };
  }

  test('a call: 20 ms slin frames paced on the clock (no burst), DTMF reaches the agent, the caller hangs up with a 0x00 frame', async () => {
    const { far, call } = await dial();
    assert.equal(call.transport.call.provider, 'audiosocket');
    await waitFor(() => agentTurns(call).length >= 1, 'greeting played');
    await far.say(balance);
    await waitFor(() => agentTurns(call).length >= 2, 'the answer');
    assert.match(agentTurns(call)[1]!.text, /رصيد/);
    const audio = far.frames.filter((f) => f.type === 0x10);
    assert.ok(audio.length > 50);
    for (const f of audio) assert.equal(f.payload.byteLength, 320, 'every frame is 20 ms of 8 kHz slin');
    assert.ok(far.loudFrames > 20, 'the agent audio is speech');
    assert.ok(far.maxLead < 0.25, `the server never ran more than a frame or two ahead of real time (${far.maxLead.toFixed(3)} s)`);
    assert.ok(call.transport.output.position() <= far.played + 0.001, 'heard is never ahead of what Asterisk got');
    far.dtmf('5');
    await waitFor(() => call.transportEvents.some((e) => e.type === 'dtmf' && e.digit === '5'), 'DTMF reached the call');
    far.hangup();
    await waitFor(() => call.report !== undefined && s.server.calls.active === 0, 'the call ended');
    assert.match(await (await fetch(`${s.url}/metrics`)).text(), /hiwar_calls_total\{provider="audiosocket",outcome="caller-hangup"\} 1/);
  });

  test('barge-in: sending stops at once, the history keeps only what was sent by the clock; the agent hangs up with a 0x00 frame', async () => {
    const { far, call } = await dial();
    await waitFor(() => agentTurns(call).length >= 1, 'greeting played');
    void far.say(lostCard);
    await waitFor(() => call.events.some((e) => e.type === 'agent_chunk' && /بطاقتك/.test(e.text)), 'the long answer started');
    const start = far.played;
    await waitFor(() => far.played > start + 1.5, 'the caller heard part of it');
    await far.say(balance);
    await waitFor(() => agentTurns(call).some((t) => t.interrupted), 'the answer was cut off');
    const cut = agentTurns(call).find((t) => t.interrupted)!;
    assert.ok(cut.heardText.length > 0 && cut.heardText.length < cut.text.length, `heard "${cut.heardText}" of "${cut.text}"`);
    assert.ok(call.transport.output.position() <= far.played + 0.001);
    await waitFor(() => agentTurns(call).some((t) => /رصيد/.test(t.text)), 'the new question answered');
    await call.transport.hangup('done');
    await far.closed;
    assert.equal(far.frames.at(-1)!.type, 0x00, 'the last frame is the hang-up frame');
    await waitFor(() => s.server.calls.active === 0, 'the call ended');
  });

  test('junk frames leave the call healthy; a caller vanishing mid-reply frees the call', async () => {
    const { far, call } = await dial();
    far.send(encodeFrame(0x42, new Uint8Array(4)));
    far.send(encodeFrame(0x03, Buffer.from('x')));
    far.send(encodeFrame(0x12, new Uint8Array(640)));
    far.send(encodeFrame(0x01, uuidToBytes(UUID)));
    await waitFor(() => agentTurns(call).length >= 1, 'greeting played despite the junk');
    assert.ok(call.transport.stats.invalid >= 4, `invalid counted: ${call.transport.stats.invalid}`);
    void far.say(lostCard);
    await waitFor(() => call.events.some((e) => e.type === 'agent_chunk' && /بطاقتك/.test(e.text)), 'the reply started');
    const heard = far.played;
    await waitFor(() => far.played > heard + 0.5, 'the reply is playing');
    far.vanish();
    await waitFor(() => call.report !== undefined && s.server.calls.active === 0, 'the call was freed');
    await waitFor(() => as.connections() === 0, 'no socket left');
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
  });

  test('a peer not on the allow-list is disconnected before any call starts; so is one that never sends audio', async () => {
    const strict = await startAudioSocketServer(s.server.host, { port: 0, allow: ['192.0.2.1'] });
    const quiet = await startAudioSocketServer(s.server.host, { port: 0, startTimeoutMs: 200 });
    try {
      const before = s.calls.length;
      const far = new AudioSocketFarEnd(strict.port, UUID, s.clock);
      await far.start();
      await far.closed;
      assert.equal(s.calls.length, before, 'no call for a refused peer');
      assert.equal(far.frames.length, 0);
      const sock = connect(quiet.port, '127.0.0.1');
      sock.on('error', () => {});
      await new Promise((r) => sock.once('close', r));
      await waitFor(() => quiet.connections() === 0, 'the silent connection was dropped');
    } finally {
      await strict.close();
      await quiet.close();
    }
  });

  test('audio before the UUID frame: the log says so at once, and the start timeout says what was missing', async () => {
    const lines: { level: number; msg: string; reason?: string }[] = [];
    const logger = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) });
    const as = await startAudioSocketServer(s.server.host, { port: 0, startTimeoutMs: 200, logger });
    try {
      const sock = connect(as.port, '127.0.0.1');
      sock.on('error', () => {});
      sock.write(encodeFrame(0x10, new Uint8Array(320)));
      await new Promise((r) => sock.once('close', r));
      const warned = lines.filter((l) => l.level === 40);
      assert.deepEqual(warned.map((l) => [l.msg, l.reason]), [
        ["unreadable media message before the platform's start (is this audiosocket's media stream?)", 'audio before the UUID frame'],
        // It said "AudioSocket connection sent no audio" to a peer that had sent audio.
        ['AudioSocket connection started no call within 0.2 s (it must send the UUID frame, 0x01, then audio); closing', undefined],
      ]);
    } finally {
      await as.close();
    }
  });
});
