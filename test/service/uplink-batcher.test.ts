import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QUIET_AFTER_SPEECH_MS, UplinkBatcher, UPLINK_DEFAULTS, meanLevel } from '../../src/service/ws/listen-uplink.ts';

const RATE = 8000;
const FRAME = 160; // 20 ms at 8 kHz: the time base of these tests is the audio itself

function frame(loud: boolean, seed: number): Int16Array {
  const f = new Int16Array(FRAME);
  // Distinct samples per frame, so a reordered or lost byte shows in the concatenation.
  for (let i = 0; i < FRAME; i++) f[i] = loud ? Math.round(3000 * Math.sin((2 * Math.PI * 220 * (seed * FRAME + i)) / RATE)) : ((seed * 7 + i) % 41) - 20;
  return f;
}

/** A call's caller audio: per turn, silence then speech, as 20 ms frames; `true` = speech. */
function script(turns: number, silenceMs: number, speechMs: number): boolean[] {
  const out: boolean[] = [];
  for (let t = 0; t < turns; t++) {
    for (let i = 0; i < silenceMs / 20; i++) out.push(false);
    for (let i = 0; i < speechMs / 20; i++) out.push(true);
  }
  for (let i = 0; i < silenceMs / 20; i++) out.push(false);
  return out;
}

/** Runs frames through a batcher; records each message with the frame index at which it was sent. */
function run(plan: boolean[], o = UPLINK_DEFAULTS) {
  const sent: { at: number; bytes: Uint8Array }[] = [];
  let at = 0;
  const b = new UplinkBatcher(RATE, o, (m) => sent.push({ at, bytes: Uint8Array.from(m) }));
  const input: Int16Array[] = [];
  plan.forEach((loud, i) => {
    at = i;
    const f = frame(loud, i);
    input.push(f);
    b.push(f);
  });
  at = plan.length;
  b.flush();
  return { sent, input };
}

const concat = (parts: Uint8Array[]) => Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
const bytesOf = (xs: Int16Array[]) => concat(xs.map((x) => new Uint8Array(x.buffer, x.byteOffset, x.byteLength)));

test('uplink: no more than one message per 60 ms of a call\'s audio, and the stream is byte-exact', () => {
  // Ten turns of 400 ms speech between 1.5 s silences: three edges per turn on top of the chunks.
  const plan = script(10, 1500, 400);
  const { sent, input } = run(plan);
  const audioMs = plan.length * 20;
  const perSecond = sent.length / (audioMs / 1000);
  assert.ok(perSecond <= 1000 / 60, `${sent.length} messages for ${audioMs} ms of audio: ${perSecond.toFixed(1)} a second`);
  assert.ok(concat(sent.map((s) => s.bytes)).equals(bytesOf(input)), 'the messages concatenated are the input');
  // Every message within the protocol's 20..200 ms, apart from the flushes at the edges (≥ one frame).
  for (const s of sent) assert.ok(s.bytes.byteLength >= FRAME * 2 && s.bytes.byteLength <= 2 * RATE * 0.2, `message of ${s.bytes.byteLength} bytes`);
});

test('uplink: the first frame of speech and the first quiet frame after it go out in their own push', () => {
  const plan = script(3, 1000, 400);
  const { sent } = run(plan);
  plan.forEach((loud, i) => {
    if (i === 0 || loud === plan[i - 1]) return;
    const m = sent.find((s) => s.at === i);
    assert.ok(m, `frame ${i} (${loud ? 'speech starts' : 'speech ends'}) sent when it arrived`);
  });
});

test('uplink: the frame that completes the server\'s endpointing window after speech goes out at once', () => {
  const plan = script(2, 1000, 400);
  const { sent } = run(plan, { ...UPLINK_DEFAULTS, endpointingMs: 300 });
  const ends = plan.flatMap((loud, i) => (i > 0 && !loud && plan[i - 1] ? [i] : []));
  assert.equal(ends.length, 2);
  for (const e of ends) {
    // The quiet frames e .. e+14 are 300 ms: frame e+14 completes the window.
    const m = sent.find((s) => s.at === e + 14);
    assert.ok(m, `frame ${e + 14} completes 300 ms of quiet and is sent when it arrives`);
    assert.equal(concat(sent.filter((s) => s.at <= e + 14).map((s) => s.bytes)).byteLength, (e + 15) * FRAME * 2, 'nothing of it held back');
  }
});

/** Message lengths in ms (20 ms frames at 8 kHz), in order. */
const lengths = (sent: { bytes: Uint8Array }[]) => sent.map((s) => (s.bytes.byteLength / 2 / RATE) * 1000);

test('uplink: settled quiet goes in quietChunkMs messages: before the first speech, and once the endpointing window is complete', () => {
  // 900 ms quiet, 400 ms speech (frames 45..64), 1 s quiet; endpointing 300 ms.
  const plan = [...new Array(45).fill(false), ...new Array(20).fill(true), ...new Array(50).fill(false)];
  const { sent, input } = run(plan, { ...UPLINK_DEFAULTS, endpointingMs: 300 });
  assert.ok(concat(sent.map((s) => s.bytes)).equals(bytesOf(input)), 'byte-exact');
  // Before speech: 200 ms messages; the first loud frame goes when it arrives, with the 100 ms
  // gathered since the last message.
  assert.deepEqual(lengths(sent.filter((s) => s.at < 45)), [200, 200, 200, 200]);
  const onset = sent.find((s) => s.at === 45);
  assert.ok(onset, 'the first loud frame is sent when it arrives');
  assert.equal(lengths([onset])[0], 120, 'with the quiet gathered before it');
  // After speech (frames 65..): the first quiet frame at once, 100 ms messages until frame 79
  // completes 300 ms (sent at once), then 200 ms messages.
  const after = sent.filter((s) => s.at >= 65);
  assert.equal(after[0]!.at, 65);
  assert.ok(after.some((s) => s.at === 79), 'the frame completing the window is sent when it arrives');
  assert.ok(after.filter((s) => s.at > 65 && s.at < 79).every((m) => lengths([m])[0] === 100), 'unsettled quiet: 100 ms messages');
  const settled = after.filter((s) => s.at > 79 && s.at < plan.length);
  assert.ok(settled.length >= 2);
  for (const m of settled) assert.equal(lengths([m])[0], 200, `message sent at frame ${m.at}`);
});

test('uplink: without a known endpointing window, quiet after speech settles after QUIET_AFTER_SPEECH_MS', () => {
  const plan = script(1, 200, 400).concat(new Array(400).fill(false)); // then 8 s of quiet
  const { sent } = run(plan);
  const speechEnd = plan.findIndex((loud, i) => i > 0 && !loud && plan[i - 1]);
  const settlesAt = speechEnd + QUIET_AFTER_SPEECH_MS / 20 - 1;
  const before = sent.filter((s) => s.at > speechEnd && s.at <= settlesAt);
  const afterwards = sent.filter((s) => s.at > settlesAt + 10 && s.at < plan.length);
  assert.ok(before.every((m) => lengths([m])[0] === 100), 'unsettled quiet: 100 ms messages');
  assert.ok(afterwards.length > 5 && afterwards.every((m) => lengths([m])[0] === 200), 'settled quiet: 200 ms messages');
});

test('uplink: settle() (the service ended the turn) makes the quiet after speech settled at once, and is ignored in speech', () => {
  const sent: { at: number; bytes: Uint8Array }[] = [];
  let at = 0;
  const b = new UplinkBatcher(RATE, UPLINK_DEFAULTS, (m) => sent.push({ at, bytes: Uint8Array.from(m) }));
  const push = (loud: boolean) => b.push(frame(loud, at++));
  for (let i = 0; i < 10; i++) push(true);
  b.settle(); // in speech: nothing changes
  for (let i = 0; i < 10; i++) push(true);
  const speechMessages = sent.filter((s) => s.at >= 10 && s.at < 20);
  assert.ok(speechMessages.every((m) => lengths([m])[0]! <= 100), 'speech still in 100 ms messages');
  push(false); // the end of speech, sent at once
  b.settle();
  const from = sent.length;
  for (let i = 0; i < 30; i++) push(false);
  assert.deepEqual(lengths(sent.slice(from)), [200, 200, 200], 'settled quiet in 200 ms messages, with no endpointing known');
});

test('uplink: a call that is mostly listening sends about half the messages it did with 100 ms quiet', () => {
  const plan = script(10, 3000, 400);
  const now = run(plan, { ...UPLINK_DEFAULTS, endpointingMs: 250 }).sent.length;
  const before = run(plan, { ...UPLINK_DEFAULTS, endpointingMs: 250, quietChunkMs: 100 }).sent.length;
  assert.ok(now < before * 0.62, `${now} messages against ${before}`);
});

test('uplink: a quietChunkMs longer than the protocol allows is refused', () => {
  assert.throws(() => new UplinkBatcher(RATE, { ...UPLINK_DEFAULTS, quietChunkMs: 250 }, () => {}), /uplinkQuietFrameMs must be from 0 to 200/);
});

test('uplink: flush sends what is gathered; pieces of any size keep the stream exact', () => {
  const sent: Uint8Array[] = [];
  const b = new UplinkBatcher(RATE, UPLINK_DEFAULTS, (m) => sent.push(Uint8Array.from(m)));
  const input: Int16Array[] = [];
  let seed = 1;
  for (let i = 0; i < 60; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const n = 1 + (seed % 1700); // 1 sample to over two messages
    const piece = new Int16Array(n).map((_, k) => ((k * 31 + i) % 2000) - 1000);
    input.push(piece);
    b.push(piece);
  }
  assert.ok(b.buffered > 0 || sent.length > 0);
  const before = sent.length;
  b.flush();
  assert.ok(sent.length <= before + 1);
  assert.equal(b.buffered, 0);
  assert.ok(concat(sent).equals(bytesOf(input)));
  const after = sent.length;
  b.flush();
  assert.equal(sent.length, after, 'a second flush sends nothing');
});

test('uplink: chunkMs 0 sends each piece as given', () => {
  const { sent, input } = run(script(1, 200, 100), { ...UPLINK_DEFAULTS, chunkMs: 0 });
  assert.equal(sent.length, input.length);
});

test('uplink: a chunk longer than the protocol allows is refused', () => {
  assert.throws(() => new UplinkBatcher(RATE, { ...UPLINK_DEFAULTS, chunkMs: 250 }, () => {}), /from 0 to 200/);
});

test('meanLevel tells the bench tone from line noise', () => {
  assert.ok(meanLevel(frame(true, 3)) > UPLINK_DEFAULTS.speechLevel);
  assert.ok(meanLevel(frame(false, 3)) < UPLINK_DEFAULTS.speechLevel);
  assert.equal(meanLevel(new Int16Array(0)), 0);
});
