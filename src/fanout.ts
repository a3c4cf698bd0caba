import type { Subscriber } from 'rxjs';
import { Observable } from './rx.ts';

/**
 * A hot stream for the paths that run for every frame (caller audio, playout updates): what an
 * rxjs `Subject` does for them, seen through `observable`, without its cost per value. Under
 * Node, rxjs runs its ES5 build, whose `Subject.next` makes an iterator, its results and a closure
 * for every value (about 250 bytes, 50 times a second per call).
 *
 * The subscribers are an array replaced, never changed, when one comes or goes: a value goes to
 * those there were when it came, as with a Subject. With `latest`, a new subscriber first gets the
 * latest value (a `BehaviorSubject`).
 */
export class Fanout<T> {
  private live: Subscriber<T>[] = [];
  private ended: { failed: boolean; error?: unknown } | undefined;
  private last: T | undefined;
  readonly observable: Observable<T>;

  constructor(private readonly opts: { latest?: T } = {}) {
    this.last = opts.latest;
    this.observable = new Observable<T>((subscriber) => {
      if (this.ended) {
        if (this.ended.failed) subscriber.error(this.ended.error);
        else subscriber.complete();
        return;
      }
      if ('latest' in this.opts) subscriber.next(this.last as T);
      this.live = [...this.live, subscriber];
      return () => {
        this.live = this.live.filter((s) => s !== subscriber);
      };
    });
  }

  /** The latest value given (or the `latest` it was made with). */
  get value(): T {
    return this.last as T;
  }

  /** True once completed or failed. */
  get closed(): boolean {
    return this.ended !== undefined;
  }

  next(value: T): void {
    if (this.ended) return;
    this.last = value;
    const live = this.live;
    for (let i = 0; i < live.length; i++) live[i]!.next(value);
  }

  complete(): void {
    if (this.ended) return;
    this.ended = { failed: false };
    const live = this.live;
    this.live = [];
    for (const s of live) s.complete();
  }

  error(error: unknown): void {
    if (this.ended) return;
    this.ended = { failed: true, error };
    const live = this.live;
    this.live = [];
    for (const s of live) s.error(error);
  }
}
