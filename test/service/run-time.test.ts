/**
 * Run time (src/service/run-time.ts) on a virtual timeline: a stall of the process is not
 * counted against the service, a silent service is still found out. No real time passes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunTimers, StallMeter, type Timers } from '../../src/service/run-time.ts';
import { DEFAULT_LIVENESS, ListenWatchdog } from '../../src/service/ws/listen-liveness.ts';
import { GenerationEnd } from '../../src/service/ws/tts-generation.ts';

/**
 * A process on a virtual wall clock: `run(ms)` lets it run, its meter looked at every 10 ms as the
 * ticker would; `stall(ms)` takes it off the CPU (nothing runs; timers due meanwhile fire when it
 * is back, before anything else). Its `timers` fire on the wall clock, as setTimeout does.
 */
function virtualProcess() {
  let wall = 0;
  const meter = new StallMeter(() => wall);
  let holders = 0;
  const due: { at: number; fn: () => void; seq: number }[] = [];
  let seq = 0;
  const fire = () => {
    for (;;) {
      const next = due.filter((t) => t.at <= wall).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) return;
      due.splice(due.indexOf(next), 1);
      next.fn();
    }
  };
  const wallTimers: Timers = {
    set: (fn, ms) => {
      const t = { at: wall + ms, fn, seq: seq++ };
      due.push(t);
      return t;
    },
    clear: (h) => {
      const i = due.indexOf(h as (typeof due)[number]);
      if (i >= 0) due.splice(i, 1);
    },
  };
  const clock = { now: () => meter.now(), hold: () => void (holders++ || meter.resume()), release: () => void holders-- };
  return {
    meter,
    wallTimers,
    timers: new RunTimers(clock, wallTimers),
    get holders() {
      return holders;
    },
    get wall() {
      return wall;
    },
    run(ms: number) {
      for (let t = 0; t < ms; t += 10) {
        wall += 10;
        fire();
        meter.now();
      }
    },
    stall(ms: number) {
      wall += ms;
      fire();
      meter.now();
    },
  };
}

test('the meter counts the time the process ran, not its stalls; gaps within the grace are run time', () => {
  const p = virtualProcess();
  const start = p.meter.now();
  p.run(1000);
  assert.equal(p.meter.now() - start, 1000);
  p.stall(5000);
  assert.equal(p.meter.now() - start, 1010, 'a 5 s stall counts as one tick');
  assert.equal(p.meter.stalledMs, 4990);
  p.stall(20); // a look 20 ms late: a busy moment, not a stall
  assert.equal(p.meter.now() - start, 1030);
});

test('a run-time timer does not fire on a stall: it waits again for the rest of its time', () => {
  const p = virtualProcess();
  let fired = -1;
  p.timers.set(() => (fired = p.wall), 3000);
  p.run(1000);
  p.stall(10_000); // due on the wall clock meanwhile
  assert.equal(fired, -1, 'the stall is not counted: 1 s of its 3 s has run');
  p.run(1980);
  assert.equal(fired, -1);
  p.run(30);
  assert.ok(fired > 12_000, `fired after 3 s of run time (wall ${fired} ms)`);
  assert.equal(p.holders, 0, 'the meter is released once the timer fired');
});

test('a run-time timer on a process that is never starved fires on time, and a cleared one never', () => {
  const p = virtualProcess();
  let fired = -1;
  p.timers.set(() => (fired = p.wall), 3000);
  const cleared = p.timers.set(() => assert.fail('a cleared timer fired'), 1000);
  p.timers.clear(cleared);
  p.timers.clear(cleared); // twice: ignored
  p.run(2990);
  assert.equal(fired, -1);
  p.run(10);
  assert.equal(fired, 3000);
  assert.equal(p.holders, 0);
});

test('the speaker-style first-audio watchdog: a starved process with audio waiting is not a silent service', () => {
  // The service answers 500 ms after the text was sent, but this process is off the CPU for 4 s
  // from 200 ms: the answer waits unread. On wall time the 3 s watchdog would have given up.
  const p = virtualProcess();
  let gaveUp = false;
  let onWall = false;
  const timer = p.timers.set(() => (gaveUp = true), 3000);
  const wallTimer = p.wallTimers.set(() => (onWall = true), 3000);
  p.run(200);
  p.stall(4000);
  assert.equal(onWall, true, 'a wall-time watchdog gives up before the answer is read');
  assert.equal(gaveUp, false, 'the run-time one does not');
  // Back on the CPU, after the due timers: the socket's input is read, the answer disarms it.
  p.timers.clear(timer);
  p.wallTimers.clear(wallTimer);
  // A service that never answers is still given up after 3 s of run time, starved or not.
  const silent = virtualProcess();
  let silentGaveUp = false;
  silent.timers.set(() => (silentGaveUp = true), 3000);
  for (let i = 0; i < 100 && !silentGaveUp; i++) {
    silent.run(40);
    silent.stall(500);
  }
  assert.ok(silentGaveUp, 'a silent service is given up');
});

test("the TTS socket's end of generation: a stall after an isFinal is not a quiet gap", () => {
  const p = virtualProcess();
  let ends = 0;
  const g = new GenerationEnd(() => ends++, { rule: 'quiet-gap', quietGapMs: 300, stallMs: 3000 }, p.timers);
  g.frame(true, true);
  p.run(100);
  p.stall(2000);
  g.frame(true, false); // the next batch, read after the stall
  assert.equal(ends, 0, 'the audio kept coming: the stall did not end the generation');
  g.frame(false, true);
  p.run(310);
  assert.equal(ends, 1);
});

test('/listen liveness on run time: a stall with the pong unread is not a dead peer; no pong at all still is', () => {
  const o = { ...DEFAULT_LIVENESS, pingIntervalMs: 5000, pongTimeoutMs: 5000, eventTimeoutMs: 0 };
  const p = virtualProcess();
  const w = new ListenWatchdog(o, p.meter.now());
  const period = w.periodMs;
  const actions: string[] = [];
  const tick = () => {
    const a = w.tick(p.meter.now(), true);
    if (a) actions.push(a.type);
    return a;
  };
  for (let t = 0; t < 5000 + period; t += period) {
    p.run(period);
    tick();
  }
  assert.deepEqual(actions, ['ping']);
  // The pong is on its way; the process stalls for 8 s and its timer fires first when it is back.
  p.stall(8000);
  assert.equal(tick(), undefined, 'the stall is not time the peer failed to answer in');
  w.pong();
  for (let i = 0; i < 40; i++) {
    p.run(period);
    if (tick()?.type === 'ping') w.pong();
  }
  assert.ok(!actions.includes('dead'), actions.join(' '));

  // No pong, with the process starved the whole time: dead after 5 s of run time and a check.
  const q = virtualProcess();
  const dead = new ListenWatchdog(o, q.meter.now());
  let verdict: string | undefined;
  for (let i = 0; i < 10_000 && !verdict; i++) {
    q.run(period / 10);
    q.stall(period);
    const a = dead.tick(q.meter.now(), true);
    if (a?.type === 'dead') verdict = a.reason;
  }
  assert.match(verdict ?? '', /no pong within 5000 ms/);
});
