import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOpusCodec, type OpusCodec } from '../../transports/webrtc/opus.ts';
import { AgentOutput } from '../../transports/webrtc/agent-output.ts';
import { PacketClock } from '../../transports/webrtc/packet-clock.ts';
import { buildRtp, parseRtp, type RtpPacket } from '../../transports/webrtc/rtp.ts';
import { ResamplingOutput } from '../../src/transport/resampling-output.ts';
import type { PlaybackUpdate } from '../../src/transport/types.ts';

const tone = (seconds: number, rate = 24000, hz = 440) => Int16Array.from({ length: Math.round(seconds * rate) }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / rate)));

test('RTP header round-trips, and CSRCs, extensions and padding are skipped on read', () => {
  const payload = Buffer.from([1, 2, 3, 4]);
  const p = parseRtp(buildRtp({ payloadType: 111, sequenceNumber: 65535, timestamp: 0xfffffff0, ssrc: 0xdeadbeef, marker: true }, payload));
  assert.deepEqual({ ...p, payload: [...p.payload] }, { payloadType: 111, sequenceNumber: 65535, timestamp: 0xfffffff0, ssrc: 0xdeadbeef, marker: true, payload: [1, 2, 3, 4] });
  // Version 2, padding, extension, 1 CSRC; a one-word extension; 2 bytes of padding.
  const withAll = Buffer.concat([
    Buffer.from([0xb1, 0x6f, 0, 7, 0, 0, 0, 9, 0, 0, 0, 5]),
    Buffer.from([0, 0, 0, 1]),
    Buffer.from([0xbe, 0xde, 0, 1, 0x10, 0xff, 0, 0]),
    Buffer.from([9, 8, 7, 0, 2]),
  ]);
  const q = parseRtp(withAll);
  assert.equal(q.sequenceNumber, 7);
  assert.deepEqual([...q.payload], [9, 8, 7]);
  assert.throws(() => parseRtp(Buffer.from([0x40, 0, 0])), /too short/);
  assert.throws(() => parseRtp(Buffer.alloc(12)), /version 2/);
});

async function outputOnManualClock(sampleRate: 24000 | 48000 = 24000) {
  const clock = new PacketClock({ manual: true });
  const sent: RtpPacket[] = [];
  const updates: PlaybackUpdate[] = [];
  // The output reuses its packet buffer: keep a copy.
  const out = new AgentOutput((b) => sent.push(parseRtp(Buffer.from(b))), clock, { ssrc: 1234, sampleRate });
  out.playback$.subscribe((u) => updates.push(u));
  return { clock, sent, updates, out };
}

test('agent audio leaves one Opus packet per 20 ms tick with continuous timestamps, running sequence numbers and a marker per talkspurt', async () => {
  const { clock, sent, updates, out } = await outputOnManualClock(48000);
  // As the session writes it to a 48 kHz output: 24 kHz from the TTS socket, converted at the edge.
  const edge = new ResamplingOutput(out);
  await edge.prepare(24000);
  edge.write({ samples: tone(0.5, 24000), sampleRate: 24000, time: 0 });
  const played = edge.mark('end-of-sentence'); // brings out the resampler's tail
  for (let i = 0; i < 40; i++) clock.step(); // 0.8 s: the 0.5 s and its tail, then silence
  await played;
  const first = sent.length;
  assert.ok(first >= 25 && first <= 27, `packets for 0.5 s: ${first}`);
  for (let i = 5; i < 15; i++) clock.step(); // more silence: nothing sent
  assert.equal(sent.length, first);
  edge.write({ samples: tone(0.2, 24000), sampleRate: 24000, time: 0 });
  for (let i = 0; i < 20; i++) clock.step();
  assert.ok(sent.length > first + 9);
  for (let i = 1; i < sent.length; i++) assert.equal(sent[i]!.sequenceNumber, (sent[i - 1]!.sequenceNumber + 1) & 0xffff, 'sequence numbers run on');
  assert.deepEqual(
    sent.map((p, i) => (p.marker ? i : -1)).filter((i) => i >= 0),
    [0, first],
    'marker bit on the first packet of each talkspurt only',
  );
  for (let i = 1; i < first; i++) assert.equal((sent[i]!.timestamp - sent[i - 1]!.timestamp) >>> 0, 960, 'one 20 ms frame per packet at 48 kHz');
  // Across the silence the timestamp follows the clock: 960 per tick that went by.
  const gapTicks = ((sent[first]!.timestamp - sent[first - 1]!.timestamp) >>> 0) / 960;
  assert.ok(Number.isInteger(gapTicks) && gapTicks > 10, `gap of ${gapTicks} ticks`);
  assert.ok(sent.every((p) => p.ssrc === 1234 && p.payloadType === 100));
  // The packets are real Opus: they decode to 20 ms at 48 kHz, with the tone's energy.
  const dec = createOpusCodec(48000, 1);
  let pcm: Buffer = Buffer.alloc(0);
  for (const p of sent.slice(0, 11)) pcm = dec.decode(p.payload);
  assert.equal(pcm.length / 2, 960);
  const s = new Int16Array(pcm.buffer, pcm.byteOffset, 960);
  const rms = Math.sqrt(s.reduce((n, v) => n + v * v, 0) / s.length);
  assert.ok(rms > 2000, `decoded tone is loud: rms ${rms}`);
  // Played position = what left on the clock, pushed on playback$.
  const last = updates.at(-1)!;
  assert.equal(last.queued, 0);
  assert.ok(Math.abs(last.sent - sent.length * 0.02) < 1e-9 && last.played === last.sent);
  assert.equal(out.position(), last.played);
  await out.close();
});

test('24 kHz agent audio goes straight into Opus: 480 samples a packet, still 960 timestamp units, decoded at 48 kHz', async () => {
  const { clock, sent, out } = await outputOnManualClock(24000);
  out.write({ samples: tone(0.2), sampleRate: 24000, time: 0 });
  for (let i = 0; i < 12; i++) clock.step();
  assert.equal(sent.length, 10);
  for (let i = 1; i < sent.length; i++) assert.equal((sent[i]!.timestamp - sent[i - 1]!.timestamp) >>> 0, 960);
  const dec = createOpusCodec(48000, 1);
  let pcm: Buffer = Buffer.alloc(0);
  for (const p of sent.slice(0, 8)) pcm = dec.decode(p.payload);
  const s = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
  assert.equal(s.length, 960);
  assert.ok(Math.sqrt(s.reduce((n, v) => n + v * v, 0) / s.length) > 2000);
  await out.close();
});

test('barge-in drops every queued packet at once, resolves marks, and the next talkspurt gets a marker', async () => {
  const { clock, sent, out } = await outputOnManualClock();
  out.write({ samples: tone(2), sampleRate: 24000, time: 0 });
  let marked = false;
  void out.mark('end').then(() => (marked = true));
  for (let i = 0; i < 10; i++) clock.step();
  assert.equal(sent.length, 10);
  const played = await out.interrupt();
  assert.ok(Math.abs(played - 0.2) < 1e-9, `played ${played}`);
  await Promise.resolve();
  assert.ok(marked, 'mark resolved by the interrupt');
  for (let i = 0; i < 10; i++) clock.step();
  assert.equal(sent.length, 10, 'nothing queued is sent after the interrupt');
  assert.ok(out.stats.dropped >= 85);
  out.write({ samples: tone(0.1), sampleRate: 24000, time: 0 });
  clock.step();
  assert.equal(sent.at(-1)!.marker, true);
  await out.close();
});

test('a mark resolves when the audio before it has been sent on the clock', async () => {
  const { clock, out } = await outputOnManualClock();
  out.write({ samples: tone(0.2), sampleRate: 24000, time: 0 });
  let done = false;
  void out.mark('a').then(() => (done = true));
  for (let i = 0; i < 8; i++) clock.step();
  await Promise.resolve();
  assert.equal(done, false, 'not before 0.2 s has left');
  for (let i = 0; i < 4; i++) clock.step();
  await Promise.resolve();
  assert.equal(done, true);
  assert.throws(() => out.write({ samples: tone(0.1, 16000), sampleRate: 16000, time: 0 }), /expects 24000 Hz/);
  await out.close();
});

test('on a tick every call sends before any call encodes: the next packet is encoded ahead, in the prepare phase', async () => {
  const clock = new PacketClock({ manual: true });
  const log: string[] = [];
  const outs = [1, 2, 3].map((ssrc) => new AgentOutput(() => log.push('send'), clock, { ssrc }));
  // The native encoder's methods are read-only on its prototype: each output's own instance
  // gets a logging one.
  for (const o of outs) {
    const enc = (o as unknown as { encoder: OpusCodec }).encoder;
    const encode = enc.encode.bind(enc);
    Object.defineProperty(enc, 'encode', { value: (pcm: Buffer) => (log.push('encode'), encode(pcm)) });
  }
  for (const o of outs) o.write({ samples: tone(0.1), sampleRate: 24000, time: 0 });
  clock.step();
  // The first packet of a talkspurt has nothing ready: encoded on its tick; then the next ones.
  assert.deepEqual(log.splice(0), ['encode', 'send', 'encode', 'send', 'encode', 'send', 'encode', 'encode', 'encode']);
  clock.step();
  assert.deepEqual(log.splice(0), ['send', 'send', 'send', 'encode', 'encode', 'encode']);
  // A barge-in drops the packet encoded ahead too: nothing more leaves.
  const before = outs[0]!.stats.dropped;
  await outs[0]!.interrupt();
  assert.equal(outs[0]!.stats.dropped - before, 3, 'the packet ready for the next tick and the two still queued');
  clock.step();
  assert.deepEqual(log.splice(0), ['send', 'send', 'encode', 'encode']);
  for (const o of outs) await o.close();
});

test('the shared packet clock runs on due times and stops its timer when nobody listens', async () => {
  const clock = new PacketClock({ frameMs: 10 });
  const ticks: number[] = [];
  const stop = clock.subscribe((t) => ticks.push(t.index));
  await new Promise((r) => setTimeout(r, 120));
  stop();
  const n = ticks.length;
  assert.ok(n >= 5, `ticks: ${n}`);
  assert.deepEqual(ticks, ticks.map((_, i) => i), 'no tick skipped');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(ticks.length, n, 'stopped');
});

test('a packet that leaves more than 20 ms past its tick is counted late, when it leaves', async () => {
  const clock = new PacketClock();
  let blocked = false;
  const out = new AgentOutput(
    () => {
      // The first packet's send stalls the event loop: every tick behind it runs late.
      if (blocked) return;
      blocked = true;
      const until = performance.now() + 70;
      while (performance.now() < until);
    },
    clock,
  );
  out.write({ samples: tone(0.2), sampleRate: 24000, time: 0 });
  await new Promise((r) => setTimeout(r, 400));
  await out.close();
  assert.equal(out.stats.packets, 10);
  // The stall (70 ms) holds back the ticks due during it: at least two leave > 20 ms late.
  assert.ok(out.stats.latePackets >= 2, `late packets: ${out.stats.latePackets}`);
  assert.ok(out.stats.maxLateMs >= 45, `max late ${out.stats.maxLateMs} ms`);
});
