/**
 * The barge-in bench's stage breakdown (bench/bargein-stages.ts): each barge-in the caller reports
 * is matched to the server's stamps (first loud frame at the session, the pause) and the fake's
 * SpeechStarted hold, by call and order of events. Orders and counts only, never timings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { Subject } from '../helpers/rx.ts';
import type { AgentSession } from '../../src/session/agent-session.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import type { PlaybackUpdate, TransportOutput } from '../../src/transport/types.ts';
import { BargeStageRecorder, stageRows } from '../../bench/bargein-stages.ts';

const epoch = () => performance.timeOrigin + performance.now();
const RATE = 8000;
const loud = { samples: new Int16Array(160).map((_, i) => (i % 2 ? 3000 : -3000)), sampleRate: RATE, time: 0 };
const quiet = { samples: new Int16Array(160), sampleRate: RATE, time: 0 };

test('a barge-in is split into stages from the caller, server and fake stamps; a call without a pause is left unmatched', () => {
  const rec = new BargeStageRecorder();
  const events = new Subject<SessionEvent>();
  rec.session('c1', { events$: events } as unknown as AgentSession);
  rec.start();
  const speechStart = epoch() - 20;
  const sentAt = epoch();
  rec.frame('c1', quiet);
  rec.frame('c1', loud); // the first loud frame at the session
  rec.frame('c1', loud); // not a new start
  const fakeArrived = epoch();
  const fakeSent = epoch();
  events.next({ type: 'interruption', kind: 'paused' });
  const lastMedia = epoch();
  const clearAt = epoch();
  // c2: a loud frame but no pause (its reply had ended): not matched.
  rec.frame('c2', loud);
  rec.stop();
  const holds = { c1: [{ kind: 'speech' as const, nominalMs: 0, heldMs: fakeSent - fakeArrived, at: fakeSent }] };
  const s = rec.explain(
    [
      { call: 'c1', speechStart, sentAt, lastBefore: undefined, lastMedia, mediaAfter: 1, mediaBeforeSent: 0, clearAt },
      { call: 'c2', speechStart, sentAt, lastBefore: undefined, lastMedia, mediaAfter: 1, mediaBeforeSent: 0, clearAt },
    ],
    holds,
    0,
    'service',
  );
  assert.equal(s.matched, 1);
  assert.equal(s.unmatched, 1);
  for (const k of ['total', 'capture', 'toSession', 'uplink', 'fake', 'back', 'decision', 'clearToCaller', 'gcInServer'] as const) {
    assert.equal(s.stages[k].n, 1, k);
    assert.ok(s.stages[k].p50! >= 0, `${k} is not negative`);
  }
  // The stages in between add up to the decision: uplink + fake + back = first loud frame → pause.
  assert.ok(Math.abs(s.stages.uplink.p50! + s.stages.fake.p50! + s.stages.back.p50! - s.stages.decision.p50!) <= 0.2);
  assert.equal(typeof s.serverLoopDelayMs.p99, 'number');
  assert.equal(stageRows(s).length, 9);
});

test('with the energy detector no fake hold is needed: the decision runs from the first loud frame to the pause', () => {
  const rec = new BargeStageRecorder();
  const events = new Subject<SessionEvent>();
  rec.session('c1', { events$: events } as unknown as AgentSession);
  const sentAt = epoch();
  rec.frame('c1', loud);
  events.next({ type: 'interruption', kind: 'paused' });
  const s = rec.explain([{ call: 'c1', speechStart: sentAt - 20, sentAt, lastBefore: undefined, lastMedia: epoch(), mediaAfter: 1, mediaBeforeSent: 0, clearAt: epoch() }], {}, 0, 'energy');
  assert.equal(s.matched, 1);
  assert.equal(s.stages.uplink.n, 0, 'no service stage');
  assert.equal(stageRows(s).length, 6);
});

test('each interrupt of a call\'s output is stamped with the audio it still had to send, and found by the barge-in whose clear it sent', async () => {
  const rec = new BargeStageRecorder();
  const playback = new Subject<PlaybackUpdate>();
  let interrupted = 0;
  const out = { playback$: playback, interrupt: async () => ++interrupted } as unknown as TransportOutput;
  rec.output('c1', out);
  const sentAt = epoch();
  playback.next({ sent: 1, played: 0.8, queued: 0.18, at: 0 });
  const wrote = epoch();
  // An update that sent nothing more (a mark's acknowledgement) is not a write.
  playback.next({ sent: 1, played: 0.9, queued: 0.18, at: 0 });
  assert.equal(await out.interrupt(), 1, 'the output still interrupts');
  const clearAt = epoch();
  const barge = { call: 'c1', speechStart: sentAt - 20, sentAt, lastBefore: undefined, lastMedia: undefined, mediaAfter: 0, mediaBeforeSent: 0, clearAt };
  assert.equal(rec.interruptOf(barge)?.unsentMs, 180);
  const lastWrite = rec.interruptOf(barge)!.lastWrite!;
  assert.ok(lastWrite >= sentAt && lastWrite <= wrote, 'stamped at the update whose sent grew, not at the later one');
  assert.equal(rec.interruptOf({ ...barge, call: 'c2' }), undefined);
  assert.equal(rec.interruptOf({ ...barge, sentAt: clearAt + 10, clearAt: clearAt + 20 }), undefined, 'an interrupt before the speech frame left is not its');
});
