/**
 * The JSON media streams (Twilio, Telnyx, Plivo, Exotel) against the messages their own
 * documentation shows (test/fixtures/platforms/<platform>/messages.json, each naming its page):
 * each fixture is sent verbatim over a real WebSocket to `hiwar serve`'s route, and the test
 * checks what the provider parsed (call id, stream id, rate, custom parameters, caller samples,
 * keys, marks, the end) and what hiwar sent back, against literal JSON and bytes written here.
 * Expected samples are the ITU-T G.711 table's values (test/fixtures/codecs/g711-table.json), not
 * anything computed by hiwar's codec.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PlatformPeer, platformFixture, shape, startFixtureServer, until, type FixtureCall, type FixtureServer } from './fixture-server.ts';

let srv: FixtureServer;
before(async () => {
  srv = await startFixtureServer();
});
after(() => srv.close());

/** Call info as plain JSON (absent fields left out). */
const info = (c: FixtureCall) => JSON.parse(JSON.stringify(c.transport.call));
const samples = (c: FixtureCall) => c.audio.flatMap((a) => [...a]);
const hexOf = (b64: string) => Buffer.from(b64, 'base64').toString('hex');
/** 20 ms at 8 kHz of the G.711 mu-law table's values for codes 00 80 ff 7e 01 f0 70 81. */
const MULAW_FRAME = Int16Array.from({ length: 160 }, (_, i) => [-32124, 32124, 0, -8, -31100, 120, -120, 31100][i % 8]!);
/** The same samples as mu-law bytes, in base64: what must go out. */
const MULAW_FRAME_B64 =
  'AID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQ==';
/** PCM16 samples whose bytes show the byte order: 258 = 0x0102, -2 = 0xfffe, 32767, -32768. */
const L16 = (n: number) => Int16Array.from({ length: n }, (_, i) => [258, -2, 32767, -32768][i % 4]!);
const L16_LE = '0201feffff7f0080';
const L16_BE = '0102fffe7fff8000';

async function dial(path: string, opening: object[]): Promise<{ peer: PlatformPeer; call: FixtureCall }> {
  const peer = await PlatformPeer.websocket(`${srv.wsUrl}${path}`);
  const next = srv.nextCall();
  for (const m of opening) peer.send(m);
  return { peer, call: await next };
}

const played = (c: FixtureCall, id: string) => until(() => c.events.some((e) => e.type === 'played' && e.id === id), `mark ${id} reported played`);
const eventOf = async (c: FixtureCall, type: string) => {
  await until(() => c.events.some((e) => e.type === type), `a ${type} event`);
  return c.events.find((e) => e.type === type);
};

test('Twilio: documented connected/start/media/dtmf/mark/stop parsed; media, mark and clear sent as documented', async () => {
  const f = platformFixture('twilio');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/twilio', [m('connected'), m('start')]);
  const SID = 'MZXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX';
  assert.deepEqual(info(call), { callId: 'CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', provider: 'twilio', streamId: SID, parameters: { FirstName: 'Jane', LastName: 'Doe', RemoteParty: 'Bob' } });
  assert.equal(call.transport.inputRate, 8000);

  // Frames with a chunk number go through the reorder buffer: they reach the session once a few
  // more have come, or when the stream ends; the samples are checked at the end.
  peer.send(m('mediaOtherTrack'));
  peer.send(m('media'));

  const out = call.transport.output;
  out.write({ samples: MULAW_FRAME, sampleRate: 8000, time: 0 });
  const heard = out.mark('greeting');
  const media = await peer.nextJson();
  assert.deepEqual(media, { event: 'media', streamSid: SID, media: { payload: MULAW_FRAME_B64 } });
  assert.deepEqual(shape(media), shape(f.toPlatform.media.message));
  assert.deepEqual(await peer.nextJson(), { event: 'mark', streamSid: SID, mark: { name: 'h1' } });
  peer.send({ ...m('mark'), mark: { name: 'h1' } });
  await heard;
  await played(call, 'greeting');
  assert.equal(out.position(), 0.02, 'the acknowledged 20 ms were heard');

  out.write({ samples: MULAW_FRAME, sampleRate: 8000, time: 0 });
  assert.deepEqual(await peer.nextJson(), { event: 'media', streamSid: SID, media: { payload: MULAW_FRAME_B64 } });
  assert.deepEqual(await peer.nextJson(), { event: 'mark', streamSid: SID, mark: { name: 'h2' } });
  await out.interrupt();
  const clear = await peer.nextJson();
  assert.deepEqual(clear, { event: 'clear', streamSid: SID });
  assert.deepEqual(shape(clear), shape(f.toPlatform.clear.message));
  // Twilio echoes a mark a clear dropped: it must not count as heard.
  peer.send({ ...m('mark'), mark: { name: 'h2' } });

  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '1' });
  peer.send(m('stop'));
  await call.ended;
  // Only the inbound track is the caller; the outbound one sent first was not taken.
  assert.deepEqual(samples(call), [-32124, 32124, 0, 0, -16764, 16764, -716, 716]);
  assert.equal(out.position(), 0.02, 'the cleared frame was never heard');
  assert.deepEqual(await eventOf(call, 'hangup'), { type: 'hangup', reason: 'caller hung up' });
  peer.close();
});

test('Telnyx: documented start with client_state and custom_parameters; frames put back in chunk order; media/mark/clear without a stream id', async () => {
  const f = platformFixture('telnyx');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/telnyx', [m('connected'), m('start')]);
  assert.deepEqual(info(call), {
    callId: 'v2:T02llQxIyaRkhfRKxgAP8nY511EhFLizdvdUKJiSw8d6A9BborherQ',
    provider: 'telnyx',
    streamId: '32DE0DEA-53CB-4B21-89A4-9E1819C043BC',
    from: '+13122010094',
    to: '+13122123456',
    parameters: { client_state: 'aGF2ZSBhIG5pY2UgZGF5ID1d', customer_id: 'customer_123' },
  });
  assert.equal(call.transport.inputRate, 8000);
  // Chunk 2 arrives before chunk 1 ("media frame order is not guaranteed").
  peer.send(m('media'));
  peer.send(m('mediaEarlier'));

  const out = call.transport.output;
  out.write({ samples: MULAW_FRAME, sampleRate: 8000, time: 0 });
  const heard = out.mark('greeting');
  assert.deepEqual(await peer.nextJson(), { event: 'media', media: { payload: MULAW_FRAME_B64 } });
  assert.deepEqual(await peer.nextJson(), { event: 'mark', mark: { name: 'h1' } });
  peer.send({ ...m('mark'), mark: { name: 'h1' } });
  await heard;
  await played(call, 'greeting');
  out.write({ samples: MULAW_FRAME, sampleRate: 8000, time: 0 });
  await peer.nextJson();
  await peer.nextJson();
  await out.interrupt();
  const clear = await peer.nextJson();
  assert.deepEqual(clear, { event: 'clear' });
  assert.deepEqual(shape(clear), shape(f.toPlatform.clear.message));

  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '1' });
  peer.send(m('stop'));
  await call.ended;
  assert.deepEqual(samples(call), [-31100, 31100, -32124, 32124, 0, 0, -16764, 16764, -716, 716], 'chunk 1 first, then chunk 2');
  peer.close();
});

test('Telnyx L16: RTP payloads are read and written in network byte order (big-endian)', async () => {
  const f = platformFixture('telnyx');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/telnyx', [m('connected'), m('startL16')]);
  assert.equal(call.transport.inputRate, 16000);
  const out = call.transport.output;
  out.write({ samples: L16(320), sampleRate: 16000, time: 0 });
  const media = (await peer.nextJson()) as { media: { payload: string } };
  assert.equal(hexOf(media.media.payload), L16_BE.repeat(80));
  peer.send(m('mediaL16'));
  peer.send(m('stop'));
  await call.ended;
  assert.deepEqual(samples(call), [258, -2]);
  peer.close();
});

test('Plivo: documented start (extra_headers "k=v;k=v"), media, dtmf; playAudio, checkpoint → playedStream (and the older "played"), clearAudio', async () => {
  const f = platformFixture('plivo');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/plivo', [m('start')]);
  const SID = '87654321-4321-4321-4321-cba987654321';
  assert.deepEqual(info(call), { callId: '12345678-1234-1234-1234-123456789abc', provider: 'plivo', streamId: SID, parameters: { userId: '12345', sessionId: 'abc-xyz' } });
  assert.equal(call.transport.inputRate, 8000);
  peer.send(m('media'));

  const out = call.transport.output;
  out.write({ samples: MULAW_FRAME, sampleRate: 8000, time: 0 });
  const first = out.mark('greeting');
  const play = await peer.nextJson();
  assert.deepEqual(play, { event: 'playAudio', media: { contentType: 'audio/x-mulaw', sampleRate: 8000, payload: MULAW_FRAME_B64 } });
  assert.deepEqual(shape(play), shape(f.toPlatform.playAudio.message));
  const checkpoint = await peer.nextJson();
  assert.deepEqual(checkpoint, { event: 'checkpoint', streamId: SID, name: 'h1' });
  assert.deepEqual(shape(checkpoint), shape(f.toPlatform.checkpoint.message));
  peer.send({ ...m('playedStream'), name: 'h1' });
  await first;
  await played(call, 'greeting');

  out.write({ samples: MULAW_FRAME, sampleRate: 8000, time: 0 });
  const second = out.mark('again');
  await peer.nextJson();
  assert.deepEqual(await peer.nextJson(), { event: 'checkpoint', streamId: SID, name: 'h2' });
  peer.send({ ...m('played'), name: 'h2' });
  await second;
  await played(call, 'again');
  assert.equal(out.position(), 0.04);

  out.write({ samples: MULAW_FRAME, sampleRate: 8000, time: 0 });
  await peer.nextJson();
  await peer.nextJson();
  await out.interrupt();
  assert.deepEqual(await peer.nextJson(), { event: 'clearAudio', streamId: SID });
  peer.send(m('clearedAudio'));
  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '5' });
  // Plivo ends a stream by closing the socket.
  peer.close();
  await call.ended;
  assert.equal((await eventOf(call, 'hangup'))?.type, 'hangup');
  assert.deepEqual(samples(call), [-32124, 32124, 0, 0, -16764, 16764, -716, 716]);
});

test('Exotel: documented start (audio/x-raw at "8000"), PCM16 little-endian media, dtmf with duration; 3.2 KB media chunks, mark, clear', async () => {
  const f = platformFixture('exotel');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/exotel?campaign=ramadan', [m('connected'), m('start')]);
  const SID = 'MZxxxxxxxxxxxxxxxxxxxxxxxx';
  assert.deepEqual(info(call), {
    callId: 'CAxxxxxxxxxxxxxxxxxxxxxxxx',
    provider: 'exotel',
    streamId: SID,
    from: '+919876543210',
    to: '+918047491899',
    parameters: { campaign: 'ramadan', key1: 'value1' },
  });
  assert.equal(call.transport.inputRate, 8000);
  peer.send(m('media'));

  const out = call.transport.output;
  // 200 ms at 8 kHz: 3200 bytes, Exotel's smallest chunk and a multiple of 320.
  out.write({ samples: L16(1600), sampleRate: 8000, time: 0 });
  const heard = out.mark('greeting');
  const media = (await peer.nextJson()) as { event: string; stream_sid: string; media: { payload: string } };
  assert.deepEqual({ ...media, media: { payload: hexOf(media.media.payload) } }, { event: 'media', stream_sid: SID, media: { payload: L16_LE.repeat(400) } });
  assert.deepEqual(shape(media), shape(f.toPlatform.media.message));
  assert.deepEqual(await peer.nextJson(), { event: 'mark', stream_sid: SID, mark: { name: 'h1' } });
  peer.send({ ...m('mark'), mark: { name: 'h1' } });
  await heard;
  await played(call, 'greeting');

  out.write({ samples: L16(1600), sampleRate: 8000, time: 0 });
  await peer.nextJson();
  await peer.nextJson();
  await out.interrupt();
  assert.deepEqual(await peer.nextJson(), { event: 'clear', stream_sid: SID });

  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '5', durationMs: 100 });
  peer.send(m('stop'));
  await call.ended;
  assert.deepEqual(await eventOf(call, 'hangup'), { type: 'hangup', reason: 'stream stopped (callended)' });
  assert.deepEqual(samples(call), [258, -2]);
  peer.close();
});
