import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Alarm, armTimer, realClock, VirtualClock } from '../../src/transport/clock.ts';
import { MediaStreamOutput } from '../../transports/telephony/media-output.ts';
import type { ProviderConnection, WireMessage } from '../../transports/telephony/provider.ts';

/** A virtual clock that also has `after`, counting how often each way of waiting is used. */
class CountingClock extends VirtualClock {
  sleeps = 0;
  arms = 0;
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps++;
    return super.sleep(ms, signal);
  }
  after(ms: number, fire: () => void): () => void {
    this.arms++;
    let live = true;
    void super.sleep(ms).then(() => live && fire());
    return () => (live = false);
  }
}

test('armTimer: a clock with after() is used without sleep (no promise, no AbortController per arm); cancel stops it', async () => {
  const clock = new CountingClock();
  let fired = 0;
  armTimer(clock, 20, () => fired++);
  const cancel = armTimer(clock, 30, () => fired++);
  cancel();
  await clock.advance(50);
  assert.equal(fired, 1);
  assert.deepEqual([clock.arms, clock.sleeps], [2, 0]);
});

test('armTimer: a clock without after() (the virtual clock) goes through sleep, and a cancel still holds', async () => {
  const clock = new VirtualClock();
  const fired: number[] = [];
  armTimer(clock, 20, () => fired.push(clock.now()));
  const cancel = armTimer(clock, 20, () => fired.push(-1));
  await clock.advance(10);
  cancel();
  await clock.advance(40);
  assert.deepEqual(fired, [20]);
});

test('the real-time clock has after(): one Node timer, cancelled by its cancel', async () => {
  const clock = realClock();
  assert.equal(typeof clock.after, 'function');
  let cancelledFired = false;
  clock.after!(1, () => (cancelledFired = true))();
  await new Promise<void>((resolve) => clock.after!(2, resolve));
  await new Promise((r) => setImmediate(r));
  assert.equal(cancelledFired, false);
});

test('Alarm: re-armed through after(), never sleep; rings once at the latest time set', async () => {
  const clock = new CountingClock();
  const rang: number[] = [];
  const alarm = new Alarm(clock, () => rang.push(clock.now()));
  alarm.set(30);
  alarm.set(30);
  alarm.set(50);
  await clock.advance(100);
  assert.deepEqual(rang, [50]);
  assert.deepEqual([clock.arms, clock.sleeps], [2, 0], 'setting the same time again arms nothing');
});

test('telephony output: one timer arm per pacing step through after(), none through sleep, none left when the queue is empty', async () => {
  const clock = new CountingClock();
  const sent: WireMessage[] = [];
  const conn: ProviderConnection = { parse: () => [], encodeAudio: (p) => ({ binary: p }), mark: (name) => ({ text: `mark:${name}` }) };
  const out = new MediaStreamOutput({ codec: 'mulaw', sampleRate: 8000, frameMs: 20 }, conn, { send: (m) => sent.push(m), close: () => {} }, { clock });
  out.write({ samples: new Int16Array(16000).fill(1000), sampleRate: 8000, time: 0 });
  await clock.advance(2500);
  const frames = sent.filter((m) => 'binary' in m).length;
  assert.equal(frames, 100, 'all 2 s sent');
  assert.equal(clock.sleeps, 0);
  // 8 frames go at once (the lead), then one step per frame: one arm each, not a second one 1 ms later.
  assert.ok(clock.arms >= 90 && clock.arms <= frames, `${clock.arms} arms for ${frames} frames`);
  const arms = clock.arms;
  await clock.advance(1000);
  assert.equal(clock.arms, arms, 'an idle output arms nothing');
  await out.close();
});
