import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SimulatedCaller } from '../../src/testing/simulated-caller.ts';
import { VirtualClock } from '../../src/transport/clock.ts';

const RATE = 8000;
const chunk = (ms: number) => ({ samples: new Int16Array((RATE * ms) / 1000).fill(1000), sampleRate: RATE, time: 0 });

/** Drives the agent's side as a session would: audio written chunk by chunk, then the reply-end mark. */
async function reply(caller: SimulatedCaller, clock: VirtualClock, gapMs: number, withMark: boolean) {
  caller.output.write(chunk(400));
  await clock.advance(400 + gapMs);
  caller.output.write(chunk(400));
  if (withMark) void caller.output.mark('reply-end');
}

test('the caller waits out a late chunk mid-reply: its next move comes after the reply-end mark, not in the gap', async () => {
  const clock = new VirtualClock(0);
  const caller = new SimulatedCaller(RATE, [{ hangup: true, pauseMs: 300 }], new Map(), clock);
  let hungUpAt: number | undefined;
  caller.events$.subscribe((e) => {
    if (e.type === 'hangup') hungUpAt ??= clock.now();
  });
  await reply(caller, clock, 600, true);
  await clock.advance(3000);
  assert.ok(hungUpAt !== undefined, 'the caller hung up');
  assert.ok(hungUpAt >= 1400 + 300, `hung up at ${hungUpAt} ms, after the second chunk (ends at 1400 ms) and the pause`);
  assert.equal(caller.agentSpans.length, 2, 'the gap shows as two spans of agent audio');
});

test('a reply that ends without a mark counts as over after a long silence', async () => {
  const clock = new VirtualClock(0);
  const caller = new SimulatedCaller(RATE, [{ hangup: true, pauseMs: 300 }], new Map(), clock);
  let hungUpAt: number | undefined;
  caller.events$.subscribe((e) => {
    if (e.type === 'hangup') hungUpAt ??= clock.now();
  });
  await reply(caller, clock, 0, false);
  await clock.advance(6000);
  assert.ok(hungUpAt !== undefined && hungUpAt >= 800 + 3000, `hung up at ${hungUpAt} ms`);
});
