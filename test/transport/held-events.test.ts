import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeldEvents } from '../../src/transport/held-events.ts';
import type { Transport } from '../../src/transport/types.ts';

test('events before the first subscription reach every subscriber; later ones flow live', () => {
  const ev = new HeldEvents<string>();
  ev.next('dtmf 1');
  ev.next('dtmf 2');
  const observer: string[] = [];
  const session: string[] = [];
  ev.events$.subscribe((e) => observer.push(e));
  ev.next('dtmf 3');
  ev.events$.subscribe((e) => session.push(e));
  ev.next('hangup');
  assert.deepEqual(observer, ['dtmf 1', 'dtmf 2', 'dtmf 3', 'hangup']);
  assert.deepEqual(session, ['dtmf 1', 'dtmf 2', 'hangup'], 'the early events were not taken by the first subscriber');
});

test('a hang-up before anyone listens is delivered with the completion; the hold is bounded', () => {
  const ev = new HeldEvents<number>(3);
  for (let i = 1; i <= 5; i++) ev.next(i);
  ev.complete();
  ev.next(6);
  const got: number[] = [];
  let done = false;
  ev.events$.subscribe({ next: (e) => got.push(e), complete: () => (done = true) });
  assert.deepEqual(got, [3, 4, 5], 'the oldest went past the bound');
  assert.ok(done);
});

test("without a type argument it holds a transport's events, so a transport of your own type-checks as the guide writes it", () => {
  const ev = new HeldEvents();
  // The type check of the tests is the assertion: events$ is what Transport['events$'] asks for.
  const events$: Transport['events$'] = ev.events$;
  const got: string[] = [];
  events$.subscribe((e) => got.push(e.type));
  ev.next({ type: 'dtmf', digit: '5' });
  assert.deepEqual(got, ['dtmf']);
});
