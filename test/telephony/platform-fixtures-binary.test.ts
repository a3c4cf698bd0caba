/**
 * The binary media streams (Vonage, FreeSWITCH mod_audio_stream, jambonz listen, Asterisk
 * AudioSocket) against the messages and frames their own documentation shows
 * (test/fixtures/platforms/<platform>/messages.json, each naming its page), sent verbatim over a
 * real socket to `hiwar serve`; what the provider parsed and what hiwar sent back are checked
 * against literal JSON and bytes written here (hex), not against the transport's helpers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  PATTERN_LE, PlatformPeer, acknowledgedFrame, callInfo, callerSamples, eventOf, interruptedFrame, pcmPattern, platformFixture, shape, fixtureServerForFile, until,
  type FixtureCall,
} from './fixture-server.ts';

const server = fixtureServerForFile();

/** What the fixtures' audio decodes to: the pattern, repeated. */
const pattern = (n: number) => [...pcmPattern(n)];

async function dial(peer: PlatformPeer, opening: (object | string)[]): Promise<FixtureCall> {
  const next = server().nextCall();
  for (const m of opening) peer.send(m);
  return next;
}

test('Vonage: websocket:connected with its headers, 640-byte binary frames both ways, notify → websocket:notify, clear, websocket:dtmf', async () => {
  const f = platformFixture('vonage');
  const m = (k: string) => f.fromPlatform[k].message;
  const peer = await PlatformPeer.websocket(`${server().wsUrl}/telephony/vonage`);
  const call = await dial(peer, [m('connected')]);
  assert.deepEqual(callInfo(call).parameters, { prop1: 'value1', prop2: 'value2' });
  assert.equal(call.transport.inputRate, 16000, 'the rate of the content type');
  peer.send(m('audio'));
  await until(() => callerSamples(call).length >= 320, 'caller audio');
  assert.deepEqual(callerSamples(call), pattern(320), 'little-endian PCM16');

  const notify = { action: 'notify', payload: { mark: 'h1' } };
  await acknowledgedFrame(call, peer, {
    frame: pcmPattern(320),
    rate: 16000,
    read: () => peer.nextHex(),
    media: PATTERN_LE.repeat(80),
    mark: notify,
    ack: { ...m('notify'), payload: { mark: 'h1' } },
  });
  assert.deepEqual(shape(notify), shape(f.toPlatform.notify.message));
  assert.deepEqual(await interruptedFrame(call, peer, pcmPattern(320), 16000, () => peer.nextHex()), { action: 'clear' });
  peer.send(m('cleared'));
  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '5', durationMs: 260 });
  peer.close();
  await call.ended;
});

test('FreeSWITCH mod_audio_stream: metadata text, binary L16 at the command\'s 8k, streamAudio out, keys by send_text', async () => {
  const f = platformFixture('freeswitch');
  const m = (k: string) => f.fromPlatform[k].message;
  const peer = await PlatformPeer.websocket(`${server().wsUrl}/telephony/freeswitch?rate=8000`);
  const call = await dial(peer, [m('metadata')]);
  assert.deepEqual(callInfo(call), { callId: '5f8d2c1e-4b3a-4e2f-9c1d-0a1b2c3d4e5f', provider: 'freeswitch', from: '1001', to: '2000', parameters: { campaign: 'ramadan' } });
  assert.equal(call.transport.inputRate, 8000);
  peer.send(m('audio'));
  await until(() => callerSamples(call).length >= 160, 'caller audio');
  assert.deepEqual(callerSamples(call), pattern(160));

  // One streamAudio message holds 200 ms (each is queued as one playback in FreeSWITCH).
  call.transport.output.write({ samples: pcmPattern(1600), sampleRate: 8000, time: 0 });
  const msg = (await peer.nextJson()) as { type: string; data: { audioDataType: string; sampleRate: number; audioData: string } };
  assert.deepEqual(shape(msg), shape(f.toPlatform.streamAudio.message));
  assert.deepEqual({ ...msg, data: { ...msg.data, audioData: Buffer.from(msg.data.audioData, 'base64').toString('hex') } }, {
    type: 'streamAudio',
    data: { audioDataType: 'raw', sampleRate: 8000, audioData: PATTERN_LE.repeat(400) },
  });
  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '5' });
  peer.close();
  await call.ended;
});

test('jambonz listen: call attributes first (subprotocol audio.jambonz.org), binary L16, dtmf in 8 kHz units; binary out, mark, killAudio, disconnect', async () => {
  const f = platformFixture('jambonz');
  const m = (k: string) => f.fromPlatform[k].message;
  const peer = await PlatformPeer.websocket(`${server().wsUrl}/telephony/jambonz`, ['audio.jambonz.org']);
  const call = await dial(peer, [m('callAttributes')]);
  assert.deepEqual(callInfo(call), {
    callId: 'd0b2b35e-7a8c-4c7b-9d4f-0e5b9f2d6a11',
    provider: 'jambonz',
    from: '+15083084809',
    to: '+15083728299',
    direction: 'inbound',
    parameters: { campaign: 'ramadan' },
  });
  assert.equal(call.transport.inputRate, 8000);
  peer.send(m('audio'));
  await until(() => callerSamples(call).length >= 160, 'caller audio');
  assert.deepEqual(callerSamples(call), pattern(160));

  const mark = { type: 'mark', data: { name: 'h1' } };
  await acknowledgedFrame(call, peer, {
    frame: pcmPattern(160),
    rate: 8000,
    read: () => peer.nextHex(),
    media: PATTERN_LE.repeat(40),
    mark,
    ack: { ...m('mark'), data: { name: 'h1', event: 'playout' } },
  });
  assert.deepEqual(shape(mark), shape(f.toPlatform.mark.message));
  // The module plays nothing until it holds 160 ms (fixture `playout`): the reply's 20 ms are
  // followed by 140 ms of silence (with the marks of every 100 ms).
  for (let i = 0; i < 5; i++) assert.equal(await peer.nextHex(), '00'.repeat(320), 'silence completing the first batch');
  assert.deepEqual(await peer.nextJson(), { type: 'mark', data: { name: 'h2' } });
  for (let i = 0; i < 2; i++) assert.equal(await peer.nextHex(), '00'.repeat(320));
  assert.deepEqual(await peer.nextJson(), { type: 'mark', data: { name: 'h3' } });
  // A barge-in: 80 ms of silence at once (the module then holds 80 ms batches) puts the 20 ms it
  // holds into the buffer the killAudio empties.
  call.transport.output.write({ samples: pcmPattern(160), sampleRate: 8000, time: 0 });
  assert.equal(await peer.nextHex(), PATTERN_LE.repeat(40));
  assert.deepEqual(await peer.nextJson(), { type: 'mark', data: { name: 'h4' } });
  await call.transport.output.interrupt();
  assert.equal(await peer.nextHex(), '00'.repeat(1280));
  assert.deepEqual(await peer.nextJson(), { type: 'killAudio' });
  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '5', durationMs: 200 });
  await call.transport.hangup!('done');
  assert.deepEqual(await peer.nextJson(), { type: 'disconnect' });
  await peer.closed;
});

test('jambonz listen: the bytes hiwar sends are the module\'s own shapes; a mark it reports cleared (with the audio sent after a killAudio) is not counted as heard', async () => {
  const f = platformFixture('jambonz');
  // The fixtures' literal text, with the mark's name put in.
  const from = (k: string, name: string): string => f.fromPlatform[k].text.replace('<name>', name);
  const to = (k: string, name = ''): string => f.toPlatform[k].text.replace('<name>', name);
  const peer = await PlatformPeer.websocket(`${server().wsUrl}/telephony/jambonz`, ['audio.jambonz.org']);
  const call = await dial(peer, [f.fromPlatform.callAttributes.message]);
  const out = call.transport.output;
  const frame = () => out.write({ samples: pcmPattern(160), sampleRate: 8000, time: 0 });

  frame();
  assert.equal(await peer.nextHex(), PATTERN_LE.repeat(40), '20 ms of L16, little-endian, as one binary message');
  assert.equal(await peer.nextText(), to('mark', 'h1'));
  // The module echoes a mark read while its audio waits in the pre-buffer (its first batch is
  // 160 ms) at once: h1's echo says nothing was heard yet (docs/protocols.md, jambonz).
  peer.send(from('mark', 'h1'));

  frame();
  await peer.nextHex();
  assert.equal(await peer.nextText(), to('mark', 'h2'));
  await out.interrupt();
  // 40 ms sent, all held by the module (its first batch is 160 ms): 120 ms of silence completes it.
  assert.equal(await peer.nextHex(), '00'.repeat(1920));
  assert.equal(await peer.nextText(), to('killAudio'));
  // The next reply's first frame, read by jambonz before its next media frame applied the clear:
  // the module clears it too, and reports both marks cleared.
  frame();
  await peer.nextHex();
  assert.equal(await peer.nextText(), to('mark', 'h3'));
  const waited = out.mark('reply');
  peer.send(from('markCleared', 'h2'));
  peer.send(from('markCleared', 'h3'));
  await waited; // nothing waits on audio that will never play
  assert.equal(out.position(), 0, 'heard: nothing (both frames were held in the pre-buffer, then flushed into the cleared buffer)');
  assert.ok(!call.events.some((e) => e.type === 'played' && e.id === 'reply'), 'the dropped audio is not reported played');
  // The reply's end: 80 ms of silence, so the module plays its last 20 ms.
  for (let i = 0; i < 4; i++) assert.equal(await peer.nextHex(), '00'.repeat(320));
  assert.equal(await peer.nextText(), to('mark', 'h4'));

  await call.transport.hangup!('done');
  assert.equal(await peer.nextText(), to('disconnect'));
  await peer.closed;
});

test("jambonz listen: a current feature-server's first frame: its call attributes are not custom parameters, the verb's metadata and the call's tags are", async () => {
  const f = platformFixture('jambonz');
  const peer = await PlatformPeer.websocket(`${server().wsUrl}/telephony/jambonz`, ['audio.jambonz.org']);
  const call = await dial(peer, [f.fromPlatform.callAttributesFeatureServer.message]);
  assert.deepEqual(callInfo(call), {
    callId: '9fb35c28-9688-4531-943c-e280b04f3adf',
    provider: 'jambonz',
    from: '+15083084809',
    to: '+15083728299',
    direction: 'inbound',
    // sbcCallid, sipReason, callerId, traceId, fsSipAddress… are the call's, not the app's.
    parameters: { campaign: 'ramadan', customerRef: 'C-1042', tier: 'gold', visits: '3' },
  });
  await call.transport.hangup!('done');
  assert.deepEqual(await peer.nextJson(), { type: 'disconnect' });
  await peer.closed;
});

test('Asterisk AudioSocket: UUID, 0x10 slin frames, 0x03 DTMF; agent audio as 0x10 frames; hang-up 00 00 00', async () => {
  const f = platformFixture('audiosocket');
  const m = (k: string) => f.fromPlatform[k].message;
  const peer = await PlatformPeer.tcp(server().audioSocketPort);
  const call = await dial(peer, [m('uuid'), m('audio')]);
  assert.deepEqual(callInfo(call), { callId: '0f8fad5b-d9cb-469f-a165-70867728950e', provider: 'audiosocket', parameters: {} });
  assert.equal(call.transport.inputRate, 8000);
  await until(() => callerSamples(call).length >= 160, 'caller audio');
  assert.deepEqual(callerSamples(call), pattern(160));

  call.transport.output.write({ samples: pcmPattern(160), sampleRate: 8000, time: 0 });
  assert.equal(await peer.bytes(323), `100140${PATTERN_LE.repeat(40)}`, 'type 0x10, length 0x0140 big-endian, 320 bytes little-endian');
  peer.send(m('dtmf'));
  assert.deepEqual(await eventOf(call, 'dtmf'), { type: 'dtmf', digit: '7' });
  await call.transport.hangup!('done');
  assert.equal(await peer.bytes(3), '000000');
  await peer.closed;
});

test('Asterisk AudioSocket at 16 kHz (0x12): the frame type sets the rate both ways; an error frame with code 01 is a hang-up', async () => {
  const f = platformFixture('audiosocket');
  const m = (k: string) => f.fromPlatform[k].message;
  const peer = await PlatformPeer.tcp(server().audioSocketPort);
  const call = await dial(peer, [m('uuid'), m('audio16k')]);
  assert.equal(call.transport.inputRate, 16000);
  call.transport.output.write({ samples: pcmPattern(320), sampleRate: 16000, time: 0 });
  assert.equal(await peer.bytes(643), `120280${PATTERN_LE.repeat(80)}`);
  peer.send(m('errorHangup'));
  await call.ended;
  assert.deepEqual(await eventOf(call, 'hangup'), { type: 'hangup', reason: 'hangup' });
  assert.deepEqual(callerSamples(call), pattern(320));
  peer.close();
});
