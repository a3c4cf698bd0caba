import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Fanout } from '../../src/fanout.ts';
import { BehaviorSubject, Subject } from '../../src/rx.ts';

/** The same script run against a Fanout and against the rxjs subject it stands in for: what each subscriber saw. */
function script(make: () => { next(v: number): void; complete(): void; observable: import('rxjs').Observable<number> }) {
  const s = make();
  const seen: Record<string, (number | string)[]> = { a: [], b: [], c: [], d: [] };
  const watch = (k: string) => ({ next: (v: number) => seen[k]!.push(v), complete: () => seen[k]!.push('done'), error: () => seen[k]!.push('error') });
  s.observable.subscribe(watch('a'));
  s.next(1);
  const b = s.observable.subscribe({
    ...watch('b'),
    next: (v: number) => {
      seen.b!.push(v);
      // b leaves and c joins while 2 is handed out: a still gets 2, c does not.
      if (v === 2) {
        b.unsubscribe();
        s.observable.subscribe(watch('c'));
      }
    },
  });
  s.next(2);
  s.next(3);
  s.complete();
  s.next(4);
  s.observable.subscribe(watch('d'));
  return seen;
}

test('fanout: subscribers see what a Subject\'s would (joining and leaving mid-value included); with latest, what a BehaviorSubject\'s would', () => {
  const plain = script(() => new Fanout<number>());
  assert.deepEqual(plain, script(() => {
    const s = new Subject<number>();
    return { next: (v) => s.next(v), complete: () => s.complete(), observable: s.asObservable() };
  }));
  assert.deepEqual(plain, { a: [1, 2, 3, 'done'], b: [2], c: [3, 'done'], d: ['done'] });
  const latest = script(() => new Fanout<number>({ latest: 0 }));
  assert.deepEqual(latest, script(() => {
    const s = new BehaviorSubject<number>(0);
    return { next: (v) => s.next(v), complete: () => s.complete(), observable: s.asObservable() };
  }));
  assert.deepEqual(latest, { a: [0, 1, 2, 3, 'done'], b: [1, 2], c: [2, 3, 'done'], d: ['done'] });
});

test('fanout: the latest value is kept; a failure reaches every subscriber, later ones included', () => {
  const f = new Fanout<number>({ latest: 5 });
  assert.equal(f.value, 5);
  f.next(6);
  assert.equal(f.value, 6);
  const errors: unknown[] = [];
  f.observable.subscribe({ error: (e) => errors.push(e) });
  f.observable.subscribe({ error: (e) => errors.push(e) });
  const boom = new Error('boom');
  f.error(boom);
  assert.equal(f.closed, true);
  f.observable.subscribe({ error: (e) => errors.push(e) });
  assert.deepEqual(errors, [boom, boom, boom]);
});
