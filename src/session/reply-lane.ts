import { Observable, Subject, Subscription, switchMap } from '../rx.ts';
import type { UserTurn } from '../pipeline/turns.ts';
import type { ScriptedLineKind } from './events.ts';

/** What the session is asked to say: a reply to a caller turn, a fixed line, or a model reply. */
export interface LaneRequest {
  /** A caller turn to answer. */
  turn?: UserTurn;
  /** Clock time the caller stopped speaking (for keys: pressed the last one), stamped when the turn was decided. */
  speechEndAt?: number;
  /** The turn is keys the caller pressed, not speech. */
  keyed?: boolean;
  /** The caller turn's number (`user_turn`'s `turn`), for the reply's events. */
  turnNumber?: number;
  /** A fixed line (the greeting, `say`): spoken without the model. */
  text?: string;
  /** The fixed line is the agent's greeting (the report and the events name it so). */
  greeting?: boolean;
  /** One-off instructions for this model reply only (`generateReply`). */
  instructions?: string;
  /** Called once the request is over: spoken, cut off or dropped. */
  done?: () => void;
}

/** What a request's fixed text is (the greeting, else text the agent's code gave); none for the model's reply. */
export function scriptedKind(req: LaneRequest): ScriptedLineKind | undefined {
  return req.text === undefined ? undefined : req.greeting ? 'greeting' : 'scripted';
}

/**
 * Owns the lifetime of replies: one at a time; a caller's turn cuts off the one in flight (and
 * waits for its audio to stop), lines asked by code (`say`, `generateReply`) wait their turn
 * behind it; `cancel` stops the one in flight; `idle` resolves when nothing is in flight.
 */
export class ReplyLane {
  private readonly requests$ = new Subject<LaneRequest>();
  private readonly sub = new Subscription();
  private readonly queued: LaneRequest[] = [];
  private cancelCurrent: (() => Promise<void>) | undefined;
  private lastCleanup: Promise<void> = Promise.resolve();
  /** The last reply has ended: the next one need not wait a tick for it. */
  private lastEnded = true;
  private started = false;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  /** Lines and replies asked by code so far (`enqueue`): whether some code had anything said since. */
  enqueued = 0;

  constructor(
    private readonly run: (req: LaneRequest, signal: AbortSignal) => Promise<void>,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** Starts taking requests (those queued before go first). */
  start(): void {
    this.started = true;
    this.sub.add(this.requests$.pipe(switchMap((req) => this.observe(req))).subscribe({ error: (err) => this.failed(err) }));
    this.drain();
  }

  /** A caller turn: cuts off the reply in flight. */
  answer(req: LaneRequest): void {
    if (this.stopped) return req.done?.();
    this.requests$.next(req);
  }

  /** A line or reply asked by code: spoken after the reply in flight and those queued before it. */
  enqueue(req: LaneRequest): void {
    if (this.stopped) return req.done?.();
    this.enqueued++;
    this.queued.push(req);
    this.drain();
  }

  /** A reply is in flight. */
  get busy(): boolean {
    return !this.lastEnded;
  }

  /** Resolves when no reply is in flight and none is queued. */
  idle(): Promise<void> {
    if (!this.busy && !this.queued.length) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Stops the reply in flight (a confirmed barge-in) and resolves once its audio has stopped. */
  async cancel(): Promise<void> {
    await this.cancelCurrent?.();
  }

  /** No more replies: the one in flight is stopped, the queued ones dropped. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const q of this.queued.splice(0)) q.done?.();
    await this.cancel().catch(() => {});
    this.sub.unsubscribe();
    this.wake();
  }

  private drain(): void {
    if (!this.started || this.busy || this.stopped) return;
    const next = this.queued.shift();
    if (next) this.requests$.next(next);
    else this.wake();
  }

  private wake(): void {
    for (const w of this.idleWaiters.splice(0)) w();
  }

  /** A reply as an Observable: unsubscribing (switchMap on the next turn) cancels it. */
  private observe(req: LaneRequest): Observable<never> {
    return new Observable<never>((subscriber) => {
      const ctrl = new AbortController();
      // No reply before this one, or it has ended: nothing to wait for (not even a tick).
      const previous = this.lastEnded ? undefined : this.lastCleanup;
      this.lastEnded = false;
      const done = (async () => {
        if (previous) await previous; // the cut-off reply has stopped its audio before this one starts
        if (ctrl.signal.aborted) return;
        await this.run(req, ctrl.signal);
      })()
        .catch((err) => this.failed(err))
        .finally(() => {
          req.done?.();
          subscriber.complete();
        });
      this.lastCleanup = done;
      void done.then(() => {
        if (this.lastCleanup !== done) return;
        this.lastEnded = true;
        this.drain();
      });
      this.cancelCurrent = async () => {
        ctrl.abort();
        await done;
      };
      return () => ctrl.abort();
    });
  }
}
