/** The /listen liveness rules on a virtual timeline (ListenWatchdog is pure: times are passed in). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_LIVENESS, ListenWatchdog, type ListenLiveness } from '../../src/service/ws/listen-liveness.ts';

const RATE = 16000;
/** 20 ms of PCM16 bytes at `amplitude` (a square wave: its RMS is the amplitude). */
const frame = (amplitude: number): Uint8Array => {
  const pcm = new Int16Array(RATE / 50);
  for (let i = 0; i < pcm.length; i++) pcm[i] = i % 2 ? amplitude : -amplitude;
  return new Uint8Array(pcm.buffer);
};
const SILENCE = frame(20);
const SPEECH = frame(3000);

/** Streams frames in real-time steps of 20 ms from `t`, ticking as the socket's timer would; the first action that is not a ping. */
function run(w: ListenWatchdog, t: number, frames: number, audio: Uint8Array, opts: { pong?: boolean; hear?: (i: number) => boolean } = {}) {
  for (let i = 0; i < frames; i++, t += 20) {
    w.sent(audio, RATE);
    if (opts.hear?.(i)) w.heard();
    const a = w.tick(t, true);
    if (a?.type === 'ping' && opts.pong !== false) w.pong();
    if (a?.type === 'dead') return { t, dead: a.reason };
  }
  return { t, dead: undefined };
}

const liveness = (o: Partial<ListenLiveness> = {}): ListenLiveness => ({ ...DEFAULT_LIVENESS, ...o });

test('ten minutes of silence with no event back, pings answered: alive', () => {
  const w = new ListenWatchdog(liveness(), 0);
  assert.equal(run(w, 0, 30_000, SILENCE).dead, undefined);
});

test('speech with no event back: dead after eventTimeoutMs of speech, however long the silences between', () => {
  const w = new ListenWatchdog(liveness({ eventTimeoutMs: 10_000 }), 0);
  let t = 0;
  // 2 s of speech then 60 s of silence, five times: 10 s of speech in five minutes.
  for (let round = 0; round < 5; round++) {
    const spoken = run(w, t, 100, SPEECH);
    assert.equal(spoken.dead, undefined, `round ${round}`);
    const quiet = run(w, spoken.t, 3000, SILENCE);
    assert.equal(quiet.dead, undefined, `round ${round} silence`);
    t = quiet.t;
  }
  const last = run(w, t, 10, SPEECH);
  assert.match(last.dead ?? '', /^10\.\d s of speech sent with no event back$/);
});

test('any event from the server resets the count of unanswered speech', () => {
  const w = new ListenWatchdog(liveness({ eventTimeoutMs: 1000 }), 0);
  // An event every 40 frames (800 ms of speech): never dead.
  assert.equal(run(w, 0, 5000, SPEECH, { hear: (i) => i % 40 === 0 }).dead, undefined);
  // Then none: dead once a second of speech is past.
  const r = run(w, 100_000, 100, SPEECH);
  assert.ok(r.dead);
  assert.ok(r.t - 100_000 <= 1100, `dead after ${r.t - 100_000} ms`);
});

test('a ping without a pong is dead, in silence too; eventTimeoutMs 0 never counts speech', () => {
  const w = new ListenWatchdog(liveness({ pingIntervalMs: 5000, pongTimeoutMs: 5000, eventTimeoutMs: 0 }), 0);
  const r = run(w, 0, 1000, SILENCE, { pong: false });
  assert.match(r.dead ?? '', /no pong within 5000 ms/);
  assert.ok(r.t > 10_000 && r.t <= 10_100, `dead at ${r.t} ms: the ping at 5 s, its pong overdue after 10 s`);
  const quietSpeech = new ListenWatchdog(liveness({ pingIntervalMs: 0, eventTimeoutMs: 0 }), 0);
  assert.equal(quietSpeech.enabled, false);
  assert.equal(run(quietSpeech, 0, 5000, SPEECH).dead, undefined);
});

test('the speech level: idle line noise does not count, speech does, at any byte offset', () => {
  const w = new ListenWatchdog(liveness({ eventTimeoutMs: 100, speechRms: 300 }), 0);
  assert.equal(run(w, 0, 500, frame(250)).dead, undefined);
  const odd = new Uint8Array(SPEECH.byteLength + 1).subarray(1);
  odd.set(SPEECH);
  for (let i = 0; i < 6; i++) w.sent(odd, RATE);
  assert.ok(w.tick(10_000, true)?.type === 'dead');
});

test('samples and their bytes count the same: the speech level is RMS ≥ speechRms, at its edge too', () => {
  // random audio of a known RMS: the count must match the RMS computed here, for both forms
  const pcm = new Int16Array(RATE / 50);
  let seed = 7;
  for (let i = 0; i < pcm.length; i++) pcm[i] = ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 65536) - 32768;
  const rms = Math.sqrt(pcm.reduce((s, x) => s + x * x, 0) / pcm.length);
  const counted = (audio: Int16Array | Uint8Array, speechRms: number) => {
    const w = new ListenWatchdog(liveness({ eventTimeoutMs: 10, speechRms }), 0);
    w.sent(audio, RATE);
    return w.tick(0, true)?.type === 'dead';
  };
  const bytes = new Uint8Array(pcm.byteLength + 1).subarray(1);
  bytes.set(new Uint8Array(pcm.buffer));
  for (const audio of [pcm, bytes]) {
    assert.equal(counted(audio, Math.floor(rms)), true, 'just below the RMS: speech');
    assert.equal(counted(audio, Math.ceil(rms) + 1), false, 'above the RMS: not speech');
  }
  assert.equal(counted(new Int16Array(0), 0), false, 'nothing sent counts nothing');
});

test('an overdue pong is decided one tick later: a pong read right after the tick that found it overdue keeps the connection (stalls themselves are left out by run time: run-time.test.ts)', () => {
  const w = new ListenWatchdog(liveness({ pingIntervalMs: 5000, pongTimeoutMs: 5000, eventTimeoutMs: 0 }), 0);
  const period = w.periodMs;
  let t = 0;
  for (; t <= 5000; t += period) assert.notEqual(w.tick(t, true)?.type, 'dead');
  // The ping went out at 5 s; its timer fires 8 s later (on wall time: a stall), before the pong is read.
  t += 8000;
  assert.equal(w.tick(t, true), undefined, 'the late tick does not call the connection dead');
  // The pong, read right after that tick, keeps it alive.
  w.pong();
  for (let i = 0; i < 20; i++, t += period) {
    const a = w.tick(t, true);
    assert.notEqual(a?.type, 'dead');
    if (a?.type === 'ping') w.pong();
  }

  // Without a pong, on time: overdue at one tick, dead at the next.
  const dead = new ListenWatchdog(liveness({ pingIntervalMs: 5000, pongTimeoutMs: 5000, eventTimeoutMs: 0 }), 0);
  const actions: string[] = [];
  for (let u = 0; u <= 12_500; u += period) actions.push(`${u}:${dead.tick(u, true)?.type ?? '-'}`);
  const firstDead = actions.find((a) => a.endsWith(':dead'));
  assert.equal(firstDead, `${5000 + 5000 + 2 * period}:dead`, actions.join(' '));
});
