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
import { test } from 'node:test';
import {
  PATTERN_LE, PlatformPeer, acknowledgedFrame, callInfo, callerSamples, eventOf, interruptedFrame, pcmPattern, platformFixture, shape, fixtureServerForFile, until,
  type FixtureCall,
} from './fixture-server.ts';

const server = fixtureServerForFile();

const hexOf = (b64: string) => Buffer.from(b64, 'base64').toString('hex');
/** 20 ms at 8 kHz of the G.711 mu-law table's values for codes 00 80 ff 7e 01 f0 70 81. */
const MULAW_FRAME = Int16Array.from({ length: 160 }, (_, i) => [-32124, 32124, 0, -8, -31100, 120, -120, 31100][i % 8]!);
/** The same samples as mu-law bytes, in base64: what must go out. */
const MULAW_FRAME_B64 =
  'AID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQCA/34B8HCBAID/fgHwcIEAgP9+AfBwgQ==';
/** The fixtures' mu-law payload 00 80 ff 7f 0f 8f 55 d5, as the G.711 table decodes it. */
const FIXTURE_SAMPLES = [-32124, 32124, 0, 0, -16764, 16764, -716, 716];

async function dial(path: string, opening: object[]): Promise<{ peer: PlatformPeer; call: FixtureCall }> {
  const peer = await PlatformPeer.websocket(`${server().wsUrl}${path}`);
  const next = server().nextCall();
  for (const m of opening) peer.send(m);
  return { peer, call: await next };
}

// Caller frames with a chunk number pass the reorder buffer: they reach the session once a few
// more have come, or when the stream ends, so each test checks the caller's samples at the end.

test('Twilio: documented connected/start/media/dtmf/mark/stop parsed; media, mark and clear sent as documented', async () => {
  const f = platformFixture('twilio');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/twilio', [m('connected'), m('start')]);
  const SID = 'MZXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX';
  assert.deepEqual(callInfo(call), { callId: 'CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', provider: 'twilio', streamId: SID, parameters: { FirstName: 'Jane', LastName: 'Doe', RemoteParty: 'Bob' } });
  assert.equal(call.transport.inputRate, 8000);
  peer.send(m('mediaOtherTrack'));
  peer.send(m('media'));

  const media = await acknowledgedFrame(call, peer, {
    frame: MULAW_FRAME,
    rate: 8000,
    read: () => peer.nextJson(),
    media: { event: 'media', streamSid: SID, media: { payload: MULAW_FRAME_B64 } },
    mark: { event: 'mark', streamSid: SID, mark: { name: 'h1' } },
    ack: { ...m('mark'), mark: { name: 'h1' } },
  });
  assert.deepEqual(shape(media), shape(f.toPlatform.media.message));
  assert.equal(call.transport.output.position(), 0.02, 'the acknowledged 20 ms were heard');
  const clear = await interruptedFrame(call, peer, MULAW_FRAME, 8000, () => peer.nextJson());
  assert.deepEqual(clear, { event: 'clear', streamSid: SID });
  assert.deepEqual(shape(clear), shape(f.toPlatform.clear.message));
  // Twilio echoes a mark a clear dropped: it must not count as heard.
  peer.send({ ...m('mark'), mark: { name: 'h2' } });

  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '1' });
  peer.send(m('stop'));
  await call.ended;
  // Only the inbound track is the caller; the outbound one sent first was not taken.
  assert.deepEqual(callerSamples(call), FIXTURE_SAMPLES);
  assert.equal(call.transport.output.position(), 0.02, 'the cleared frame was never heard');
  assert.deepEqual(await eventOf(call, 'hangup'), { type: 'hangup', reason: 'caller hung up' });
  peer.close();
});

test('Telnyx: documented start with client_state and custom_parameters; frames put back in chunk order; media/mark/clear without a stream id', async () => {
  const f = platformFixture('telnyx');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/telnyx', [m('connected'), m('start')]);
  assert.deepEqual(callInfo(call), {
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

  await acknowledgedFrame(call, peer, {
    frame: MULAW_FRAME,
    rate: 8000,
    read: () => peer.nextJson(),
    media: { event: 'media', media: { payload: MULAW_FRAME_B64 } },
    mark: { event: 'mark', mark: { name: 'h1' } },
    ack: { ...m('mark'), mark: { name: 'h1' } },
  });
  const clear = await interruptedFrame(call, peer, MULAW_FRAME, 8000, () => peer.nextJson());
  assert.deepEqual(clear, { event: 'clear' });
  assert.deepEqual(shape(clear), shape(f.toPlatform.clear.message));

  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '1' });
  peer.send(m('stop'));
  await call.ended;
  assert.deepEqual(callerSamples(call), [-31100, 31100, ...FIXTURE_SAMPLES], 'chunk 1 (01 81) first, then chunk 2');
  peer.close();
});

test('Telnyx L16: RTP payloads are read and written in network byte order (big-endian)', async () => {
  const f = platformFixture('telnyx');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/telnyx', [m('connected'), m('startL16')]);
  assert.equal(call.transport.inputRate, 16000);
  call.transport.output.write({ samples: pcmPattern(320), sampleRate: 16000, time: 0 });
  const media = (await peer.nextJson()) as { media: { payload: string } };
  assert.equal(hexOf(media.media.payload), '0102fffe7fff8000'.repeat(80));
  peer.send(m('mediaL16'));
  peer.send(m('stop'));
  await call.ended;
  assert.deepEqual(callerSamples(call), [258, -2]);
  peer.close();
});

test('Plivo: documented start (extra_headers "k=v;k=v"), media, dtmf; playAudio, checkpoint → playedStream (and the older "played"), clearAudio', async () => {
  const f = platformFixture('plivo');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/plivo', [m('start')]);
  const SID = '87654321-4321-4321-4321-cba987654321';
  assert.deepEqual(callInfo(call), { callId: '12345678-1234-1234-1234-123456789abc', provider: 'plivo', streamId: SID, parameters: { userId: '12345', sessionId: 'abc-xyz' } });
  assert.equal(call.transport.inputRate, 8000);
  peer.send(m('media'));

  const play = { event: 'playAudio', media: { contentType: 'audio/x-mulaw', sampleRate: 8000, payload: MULAW_FRAME_B64 } };
  const media = await acknowledgedFrame(call, peer, {
    frame: MULAW_FRAME,
    rate: 8000,
    read: () => peer.nextJson(),
    media: play,
    mark: { event: 'checkpoint', streamId: SID, name: 'h1' },
    ack: { ...m('playedStream'), name: 'h1' },
  });
  assert.deepEqual(shape(media), shape(f.toPlatform.playAudio.message));
  assert.deepEqual(shape({ event: 'checkpoint', streamId: SID, name: 'h1' }), shape(f.toPlatform.checkpoint.message));
  await acknowledgedFrame(call, peer, {
    id: 'again',
    frame: MULAW_FRAME,
    rate: 8000,
    read: () => peer.nextJson(),
    media: play,
    mark: { event: 'checkpoint', streamId: SID, name: 'h2' },
    ack: { ...m('played'), name: 'h2' },
  });
  assert.equal(call.transport.output.position(), 0.04);
  assert.deepEqual(await interruptedFrame(call, peer, MULAW_FRAME, 8000, () => peer.nextJson()), { event: 'clearAudio', streamId: SID });
  peer.send(m('clearedAudio'));
  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '5' });
  // Plivo ends a stream by closing the socket.
  peer.close();
  await call.ended;
  assert.equal((await eventOf(call, 'hangup'))?.type, 'hangup');
  assert.deepEqual(callerSamples(call), FIXTURE_SAMPLES);
});

test('Plivo: checkpoints a clearAudio dropped are not acknowledged (playedStream only for played audio): heard stays at the last playedStream, nothing waits, a late echo is ignored', async () => {
  const f = platformFixture('plivo');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/plivo', [m('start')]);
  const SID = '87654321-4321-4321-4321-cba987654321';
  const out = call.transport.output;
  const frame = () => out.write({ samples: MULAW_FRAME, sampleRate: 8000, time: 0 });
  const checkpoint = (name: string) => ({ event: 'checkpoint', streamId: SID, name });

  frame();
  await peer.nextJson();
  assert.deepEqual(await peer.nextJson(), checkpoint('h1'));
  peer.send({ ...m('playedStream'), name: 'h1' });
  await until(() => out.position() === 0.02, 'h1 played');

  frame();
  await peer.nextJson();
  assert.deepEqual(await peer.nextJson(), checkpoint('h2'));
  const waited = out.mark('reply');
  assert.equal(await out.interrupt(), 0.02, 'heard: up to the last playedStream');
  assert.deepEqual(await peer.nextJson(), { event: 'clearAudio', streamId: SID });
  await waited; // the reply's end, dropped: not waited for

  // The next reply, then Plivo's answer to the clear and (against its docs) an echo of the
  // dropped checkpoint, read after the new audio went out: it must not count that audio.
  frame();
  await peer.nextJson();
  assert.deepEqual(await peer.nextJson(), checkpoint('h3'));
  peer.send(m('clearedAudio'));
  peer.send({ ...m('playedStream'), name: 'h2' });
  peer.send(m('dtmf'));
  await eventOf(call, 'dtmf'); // read after the two before it
  assert.equal(out.position(), 0.02, 'the echo of a dropped checkpoint is not heard audio');
  peer.send({ ...m('playedStream'), name: 'h3' });
  await until(() => out.position() === 0.04, 'h3 played: the new reply starts where the caller stopped hearing');
  assert.ok(!call.events.some((e) => e.type === 'played' && e.id === 'reply'), 'the dropped reply end is not reported played');
  peer.close();
  await call.ended;
});

test('Exotel: documented start (audio/x-raw at "8000"), PCM16 little-endian media, dtmf with duration; 3.2 KB media chunks, mark, clear', async () => {
  const f = platformFixture('exotel');
  const m = (k: string) => f.fromPlatform[k].message;
  const { peer, call } = await dial('/telephony/exotel?campaign=ramadan', [m('connected'), m('start')]);
  const SID = 'MZxxxxxxxxxxxxxxxxxxxxxxxx';
  assert.deepEqual(callInfo(call), {
    callId: 'CAxxxxxxxxxxxxxxxxxxxxxxxx',
    provider: 'exotel',
    streamId: SID,
    from: '+919876543210',
    to: '+918047491899',
    parameters: { campaign: 'ramadan', key1: 'value1' },
  });
  assert.equal(call.transport.inputRate, 8000);
  peer.send(m('media'));

  // 200 ms at 8 kHz: 3200 bytes, Exotel's smallest chunk and a multiple of 320.
  const read = async () => {
    const msg = (await peer.nextJson()) as { media: { payload: string } };
    return { ...msg, media: { payload: hexOf(msg.media.payload) } };
  };
  const media = await acknowledgedFrame(call, peer, {
    frame: pcmPattern(1600),
    rate: 8000,
    read,
    media: { event: 'media', stream_sid: SID, media: { payload: PATTERN_LE.repeat(400) } },
    mark: { event: 'mark', stream_sid: SID, mark: { name: 'h1' } },
    ack: { ...m('mark'), mark: { name: 'h1' } },
  });
  assert.deepEqual(shape(media), shape(f.toPlatform.media.message));
  assert.deepEqual(await interruptedFrame(call, peer, pcmPattern(1600), 8000, read), { event: 'clear', stream_sid: SID });

  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '5', durationMs: 100 });
  peer.send(m('stop'));
  await call.ended;
  assert.deepEqual(await eventOf(call, 'hangup'), { type: 'hangup', reason: 'stream stopped (callended)' });
  assert.deepEqual(callerSamples(call), [258, -2]);
  peer.close();
});
