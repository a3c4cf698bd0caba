/** PacedOutput hands out views of the written pieces where it can, copies where a frame spans pieces. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VirtualClock } from '../../src/transport/clock.ts';
import { PacedOutput } from '../../src/transport/paced-output.ts';

const RATE = 8000;
const ramp = (from: number, n: number) => Int16Array.from({ length: n }, (_, i) => from + i);

test('frames are the written audio in order, whatever the pieces; whole pieces are not copied', async () => {
  const clock = new VirtualClock();
  const got: { samples: Int16Array; time: number }[] = [];
  const out = new PacedOutput(RATE, clock, (samples, time) => got.push({ samples, time }));
  const frame = ramp(0, 160);
  // One frame-sized piece, then pieces that do not line up with frames: 100 + 300 + 50.
  out.write({ samples: frame, sampleRate: RATE, time: 0 });
  out.write({ samples: ramp(160, 100), sampleRate: RATE, time: 0 });
  const long = ramp(260, 300);
  out.write({ samples: long, sampleRate: RATE, time: 0 });
  out.write({ samples: ramp(560, 50), sampleRate: RATE, time: 0 });
  const done = out.mark('end');
  await clock.advance(200);
  await done;
  assert.deepEqual(got.map((g) => g.samples.length), [160, 160, 160, 130]);
  assert.deepEqual(got.map((g) => g.time), [0, 20, 40, 60]);
  const all = got.flatMap((g) => [...g.samples]);
  assert.deepEqual(all, [...ramp(0, 610)]);
  assert.equal(got[0]!.samples, frame, 'a frame-sized piece is handed over as is');
  assert.equal(got[2]!.samples.buffer, long.buffer, 'a frame inside one piece is a view of it');
  assert.notEqual(got[1]!.samples.buffer, long.buffer, 'a frame across pieces is a copy');
  assert.equal(out.pending(), 0);
});

test('an interrupt drops the rest of a piece part-read; marks resolve in order', async () => {
  const clock = new VirtualClock();
  const got: Int16Array[] = [];
  const out = new PacedOutput(RATE, clock, (samples) => got.push(samples));
  const order: string[] = [];
  out.write({ samples: ramp(0, 400), sampleRate: RATE, time: 0 });
  void out.mark('a').then(() => order.push('a'));
  out.write({ samples: ramp(400, 160), sampleRate: RATE, time: 0 });
  void out.mark('b').then(() => order.push('b'));
  await clock.advance(30); // frames at 0 and 20 ms
  assert.deepEqual(order, []);
  await clock.advance(20); // the frame at 40 ms ends piece a
  assert.deepEqual(order, ['a']);
  await out.interrupt();
  await clock.advance(0);
  assert.deepEqual(order, ['a', 'b'], 'an interrupt resolves the marks left');
  out.write({ samples: ramp(1000, 160), sampleRate: RATE, time: 0 });
  await clock.advance(100);
  assert.deepEqual([...got.at(-1)!], [...ramp(1000, 160)], 'nothing of the dropped piece comes back');
  await out.close();
});

test('running dry inside a reply is an underrun the sink is told of; running dry at a mark (a reply end) or after an interrupt is not', async () => {
  const clock = new VirtualClock();
  const got: { time: number; lateMs: number }[] = [];
  const out = new PacedOutput(RATE, clock, (_s, time, lateMs) => got.push({ time, lateMs }));
  const write = (n: number) => out.write({ samples: ramp(0, n), sampleRate: RATE, time: clock.now() });
  write(320); // 40 ms, played at 0 and 20
  await clock.advance(100); // dry since 40 ms, no mark: the reply's next audio is 60 ms late
  write(160);
  await clock.advance(0);
  assert.deepEqual(got.slice(-1), [{ time: 100, lateMs: 60 }]);
  assert.equal(out.underruns, 1);
  assert.equal(out.underrunMs, 60);
  // The reply ends (a mark after its last audio), a pause, the next reply: no underrun.
  const end = out.mark('reply-end');
  await clock.advance(50);
  await end;
  write(160);
  await clock.advance(0);
  assert.equal(got.at(-1)!.lateMs, 0);
  // An interrupt, a pause, new audio: no underrun either.
  await clock.advance(5);
  await out.interrupt();
  await clock.advance(200);
  write(160);
  await clock.advance(0);
  assert.equal(got.at(-1)!.lateMs, 0);
  assert.equal(out.underruns, 1);
  // Audio that arrives before the previous piece finished playing continues it: no gap.
  write(160);
  await clock.advance(20);
  assert.deepEqual(got.slice(-2).map((g) => g.lateMs), [0, 0]);
  assert.equal(got.at(-1)!.time - got.at(-2)!.time, 20);
  await out.close();
});

test("on a clock with after(), pacing arms one timer per frame and never sleeps (no promise per frame)", async () => {
  const clock = new VirtualClock();
  let sleeps = 0;
  let timers = 0;
  // The virtual clock's time, seen through a clock that has `after` (as real-time clocks do).
  const timed = {
    speed: 1,
    now: () => clock.now(),
    sleep: (ms: number, signal?: AbortSignal) => (sleeps++, clock.sleep(ms, signal)),
    after: (ms: number, fire: () => void) => {
      timers++;
      const ctrl = new AbortController();
      clock.sleep(ms, ctrl.signal).then(fire, () => {});
      return () => ctrl.abort();
    },
  };
  const times: number[] = [];
  const out = new PacedOutput(RATE, timed, (_s, time) => times.push(time));
  out.write({ samples: ramp(0, 800), sampleRate: RATE, time: 0 });
  const done = out.mark('end');
  await clock.advance(200);
  await done;
  assert.deepEqual(times, [0, 20, 40, 60, 80]);
  assert.equal(sleeps, 0, 'no sleep: a promise and its continuation per frame');
  assert.equal(timers, 4, 'one timer for each frame after the first');
});
