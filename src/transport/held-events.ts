import { Observable, Subject } from '../rx.ts';
import type { TransportEvent } from './types.ts';

/**
 * A transport's events for the session. What happens before anyone subscribes (a key pressed
 * while the session opens its sockets, a hang-up during the greeting's synthesis) is held,
 * bounded, and handed to each subscriber first (an observer that subscribes before the session
 * must not take them from it); from the first subscription on, events flow live. A plain Subject
 * would drop the early ones; a ReplaySubject would also replay live events to later subscribers.
 */
export class HeldEvents<T = TransportEvent> {
  private readonly live = new Subject<T>();
  private readonly early: T[] = [];
  private subscribed = false;
  private completed = false;
  readonly events$: Observable<T>;

  /** @param maxHeld events kept while nobody listens; past this the oldest go. */
  constructor(private readonly maxHeld = 256) {
    this.events$ = new Observable<T>((subscriber) => {
      this.subscribed = true;
      for (const e of this.early) subscriber.next(e);
      return this.live.subscribe(subscriber);
    });
  }

  /** Emits an event (or keeps it until the first subscriber). */
  next(event: T): void {
    if (this.completed) return;
    if (this.subscribed) return this.live.next(event);
    this.early.push(event);
    if (this.early.length > this.maxHeld) this.early.shift();
  }

  /** Ends the events. */
  complete(): void {
    if (this.completed) return;
    this.completed = true;
    this.live.complete();
  }
}
