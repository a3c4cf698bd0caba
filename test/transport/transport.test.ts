import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '../helpers/deadline.ts';
import { firstValueFrom, toArray } from '../helpers/rx.ts';
import type { AudioFrame } from '../../src/audio/frame.ts';
import { DtmfCollector } from '../../src/pipeline/dtmf.ts';
import { CallerAudio } from '../../src/transport/caller-audio.ts';
import { VirtualClock } from '../../src/transport/clock.ts';
import { PacedOutput } from '../../src/transport/paced-output.ts';
import { ResamplingOutput } from '../../src/transport/resampling-output.ts';
import type { PlaybackUpdate } from '../../src/transport/types.ts';

const frame = (ms: number, rate: number, value = 1000, time = 0): AudioFrame => ({ samples: new Int16Array((rate * ms) / 1000).fill(value), sampleRate: rate, time });

test('paced output: frames leave on the clock, marks resolve when sent, nothing ticks in silence', async () => {
  const clock = new VirtualClock(1000);
  const sent: { n: number; time: number }[] = [];
  const out = new PacedOutput(16000, clock, (s, time) => sent.push({ n: s.length, time }));
  const updates: PlaybackUpdate[] = [];
  out.playback$.subscribe((u) => updates.push(u));
  assert.equal(clock.pending, 0, 'an idle output has no timer');
  out.write(frame(100, 16000));
  let marked = false;
  void out.mark('end').then(() => (marked = true));
  assert.deepEqual(sent, [{ n: 320, time: 1000 }], 'the first frame leaves at once');
  await clock.advance(39);
  assert.equal(sent.length, 2);
  assert.equal(marked, false);
  await clock.advance(41);
  assert.deepEqual(sent.map((s) => s.time), [1000, 1020, 1040, 1060, 1080]);
  assert.equal(marked, true, 'the mark resolved with the last frame');
  assert.equal(out.position(), 0.1);
  const last = updates.at(-1)!;
  assert.deepEqual({ sent: last.sent, played: last.played, queued: last.queued }, { sent: 0.1, played: 0.1, queued: 0 });
  await clock.advance(1000);
  assert.equal(clock.pending, 0, 'no timer once the queue is empty');
  assert.equal(sent.length, 5);
  // A new burst starts now, not back-dated, and a mark on an empty queue resolves at once.
  await out.mark('idle');
  out.write(frame(40, 16000));
  assert.equal(sent.at(-1)!.time, 2080);
  await clock.advance(20);
  assert.equal(out.position(), 0.14);
  await out.close();
});

test('paced output: interrupt drops the queue, resolves marks, keeps the position', async () => {
  const clock = new VirtualClock();
  const out = new PacedOutput(8000, clock);
  out.write(frame(200, 8000));
  const mark = out.mark('end');
  await clock.advance(50);
  const at = await out.interrupt();
  await mark;
  assert.equal(at, 0.06, 'three frames had left');
  assert.equal(out.pending(), 0);
  await clock.advance(200);
  assert.equal(out.position(), 0.06);
  assert.throws(() => out.write(frame(20, 16000)), /expects 8000 Hz/);
  await out.close();
});

test('caller audio: frames before the first subscriber are kept (bounded), then live', async () => {
  const caller = new CallerAudio({ maxBufferMs: 100 });
  for (let i = 0; i < 8; i++) caller.push(frame(20, 16000, i));
  assert.equal(caller.dropped, 3);
  const got: number[] = [];
  caller.audio$.subscribe((f) => got.push(f.samples[0]!));
  assert.deepEqual(got, [3, 4, 5, 6, 7]);
  caller.push(frame(20, 16000, 8));
  assert.deepEqual(got.at(-1), 8);
  const ended = new CallerAudio();
  ended.push(frame(20, 16000, 1));
  ended.end();
  ended.push(frame(20, 16000, 2));
  const all = await firstValueFrom(ended.audio$.pipe(toArray()));
  assert.deepEqual(all.map((f) => f.samples[0]), [1], 'a late subscriber still gets the start, then the end');
});

test('caller audio: each live subscriber gets each frame once, those there were when it came; end and failure reach all', () => {
  const caller = new CallerAudio();
  const a: number[] = [];
  const b: number[] = [];
  const late: number[] = [];
  let doneA = false;
  const subA = caller.audio$.subscribe({ next: (f) => a.push(f.samples[0]!), complete: () => (doneA = true) });
  caller.push(frame(20, 16000, 1));
  // B leaves while frame 2 is handed out, and C joins then: A still gets frame 2, C does not.
  const subB = caller.audio$.subscribe((f) => {
    b.push(f.samples[0]!);
    if (f.samples[0] === 2) {
      subB.unsubscribe();
      caller.audio$.subscribe((g) => late.push(g.samples[0]!));
    }
  });
  caller.push(frame(20, 16000, 2));
  caller.push(frame(20, 16000, 3));
  assert.deepEqual(a, [1, 2, 3]);
  assert.deepEqual(b, [2]);
  assert.deepEqual(late, [3]);
  caller.end();
  assert.equal(doneA, true);
  assert.equal(subA.closed, true);
  caller.push(frame(20, 16000, 4));
  assert.deepEqual(a, [1, 2, 3], 'nothing after the end');
  const failed = new CallerAudio();
  const errors: unknown[] = [];
  failed.audio$.subscribe({ error: (e) => errors.push(e) });
  failed.audio$.subscribe({ error: (e) => errors.push(e) });
  failed.fail(new Error('gone'));
  assert.equal(errors.length, 2);
  failed.audio$.subscribe({ error: (e) => errors.push(e) });
  assert.equal(errors.length, 3, 'a subscriber after the failure is told it');
});

test('resampling output: 24 kHz agent audio reaches a 48 kHz transport whole, in order', async () => {
  const clock = new VirtualClock();
  const received: Int16Array[] = [];
  const inner = new PacedOutput(48000, clock, (s) => received.push(s));
  const out = new ResamplingOutput(inner);
  assert.equal(out.sampleRate, 48000);
  // Not prepared: the first frames wait for the resampler, in order.
  out.write(frame(100, 24000, 8000));
  out.write(frame(100, 24000, 8000));
  const marked = out.mark('end');
  await until(() => received.length > 0, 'the first frame through the prepared resampler');
  await clock.advance(400);
  await marked;
  const total = received.reduce((n, s) => n + s.length, 0);
  assert.ok(total >= 9600 && total <= 9600 + 48 * 12, `${total} samples at 48 kHz for 200 ms`);
  // Audio already at the transport's rate passes untouched.
  out.write(frame(20, 48000, 1234));
  await clock.advance(20);
  assert.equal(received.at(-1)![0], 1234);
  assert.throws(() => out.write(frame(20, 0)), /invalid sample rate/);
  await out.close();
});

test('dtmf: a terminator or a pause ends an entry; nothing runs between entries', async () => {
  const clock = new VirtualClock();
  const d = new DtmfCollector(clock, { interDigitTimeoutMs: 1000 });
  const entries: string[] = [];
  d.entries$.subscribe((e) => entries.push(e));
  for (const k of '12#') d.push(k);
  assert.deepEqual(entries, ['12']);
  assert.equal(clock.pending, 0);
  d.push('4');
  await clock.advance(900);
  d.push('5');
  await clock.advance(900);
  assert.deepEqual(entries, ['12'], 'each key restarts the wait');
  await clock.advance(100);
  assert.deepEqual(entries, ['12', '45']);
  d.close();
});

test('alarm: one timer at the earliest deadline, re-armed or cancelled; none while unset', async () => {
  const { Alarm } = await import('../../src/transport/clock.ts');
  const clock = new VirtualClock();
  const rang: number[] = [];
  const alarm = new Alarm(clock, () => rang.push(clock.now()));
  alarm.set(500);
  alarm.set(500);
  assert.equal(clock.pending, 1);
  alarm.set(200);
  await clock.advance(1);
  assert.equal(clock.pending, 1, 'the earlier time replaced the later one');
  await clock.advance(300);
  assert.deepEqual(rang, [200]);
  alarm.set(400);
  alarm.cancel();
  await clock.advance(1000);
  assert.deepEqual(rang, [200]);
  assert.equal(clock.pending, 0);
});
