import { Observable, Subject } from '../../rx.ts';

/**
 * A Subject that holds events until someone subscribes. A socket's first frames (Metadata on
 * open) can arrive before the caller has attached; a plain Subject would lose them, a
 * ReplaySubject would replay a whole call to every late subscriber.
 */
export class EventChannel<T> {
  private readonly subject = new Subject<T>();
  private pending: T[] = [];
  private completed = false;
  readonly events$: Observable<T>;

  constructor(private readonly maxPending = 1000) {
    this.events$ = new Observable<T>((subscriber) => {
      const sub = this.subject.subscribe(subscriber);
      if (this.pending.length) {
        const queued = this.pending;
        this.pending = [];
        for (const e of queued) this.subject.next(e);
      }
      if (this.completed && !this.subject.closed) this.subject.complete();
      return sub;
    });
  }

  next(event: T): void {
    if (this.subject.observed) this.subject.next(event);
    else if (this.pending.length < this.maxPending) this.pending.push(event);
  }

  complete(): void {
    this.completed = true;
    if (this.subject.observed) this.subject.complete();
  }
}
