import type { Observable } from 'rxjs';
import { redactDigitRuns } from '../session/digit-redaction.ts';
import type { CallReport, SessionEvent } from '../session/events.ts';
import type { Logger } from '../session/logger.ts';
import type { Transport } from '../transport/types.ts';
import type { CallAdmission } from './call-admission.ts';
import { endWithLine, outcomeOf, SHUTDOWN_REASON } from './call-end.ts';
import { cancelRinging, settleNoMedia } from './drain-cancel.ts';
import { connectedElsewhere } from './drain-elsewhere.ts';
import { describeDrainWait, DRAIN_DEFAULTS, type DrainWaiting } from './drain-wait.ts';
import type { ServerMetrics } from './metrics.ts';
import { PromisedCalls } from './promised-calls.ts';
import type { TokenLedger } from './token-ledger.ts';
import { CallRefused, type CallHost, type CallObserver, type CallOutcome, type HoldOptions, type PromiseOptions, type ServerWarning } from './types.ts';

// Defined with what a drain waits for (drain-wait.ts); the server's entry exports them from here.
export { DRAIN_DEFAULTS } from './drain-wait.ts';

/** One call's session, as the server sees it (an `AgentSession` fits). */
export interface RunningSession {
  readonly events$: Observable<SessionEvent>;
  /**
   * What the session tells once its call has ended (an `AgentSession`: a given-up tool's late
   * answer): counted and told to `onSessionEvent` as the call's events are. Optional.
   */
  readonly afterEnd$?: Observable<SessionEvent>;
  /** Runs the call to its end and resolves with its report. */
  run(): Promise<CallReport>;
  /** Ends the call early (shutdown, hang-up) with a reason. */
  end(reason: string): Promise<void>;
  /**
   * Ends the call as the server shuts down, with a closing line said first (an `AgentSession`:
   * its out-of-service line). A drain out of time uses it when present, else `end`.
   */
  endWithLine?(reason: string): Promise<void>;
}

/**
 * Makes the session for one call: its own pipeline, sockets and history. May be async (an agent
 * chosen per call); a factory that throws or rejects ends that call as `failed`, no other.
 */
export type SessionFactory = (transport: Transport) => RunningSession | Promise<RunningSession>;

/** Options of the call manager. */
export interface CallManagerOptions {
  sessions: SessionFactory;
  metrics: ServerMetrics;
  logger: Logger;
  /** Calls at once; further calls are refused as `full`. @default 200 */
  maxCalls?: number;
  /** The server's public address for webhook answers. */
  publicUrl: CallHost['publicUrl'];
  /** Asked for each call first (cluster mode: the key's budget across instances). Absent: every call runs. */
  admission?: CallAdmission;
  /**
   * Told once per call after it ended (post-call analytics), with the transport given to
   * `runCall` and the session's report (none when the session failed). Not awaited: it never
   * holds the call's slot; what it throws is logged.
   */
  onCallEnded?(transport: Transport, report: CallReport | undefined, outcome: CallOutcome): void;
  /** Told when a call starts waiting for a line (the admission's queue); what it throws is logged. */
  onCallWaiting?(transport: Transport, position: number): void;
  /** Told what an adapter warns of (`CallHost.warn`); what it throws is logged. */
  onWarning?(warning: ServerWarning): void;
  /** The shared token ledger: a drain stops waiting for media it has spent on another instance (drain-elsewhere.ts). */
  ledger?: Pick<TokenLedger, 'spent'>;
  /** Told every session event of every call, with its transport (the service's reachability for `/readyz` learns from them). */
  onSessionEvent?(e: SessionEvent, transport: Transport): void;
  /**
   * Says a line to a caller whose session could not be made (the factory threw): no caller is
   * left in silence. Resolves true once said, false when there was none to say; what it throws is
   * logged. The call then ends `failed`, and `onCallEnded` is told (with no report).
   */
  sayFailure?(transport: Transport): Promise<boolean>;
}

interface Live {
  transport: Transport;
  session: RunningSession;
  done: Promise<CallOutcome>;
}

/**
 * Runs many calls in one process, each its own session. A call that throws, or whose session
 * fails, ends as `failed` without touching any other; draining refuses new calls and waits for
 * the running ones.
 */
export class CallManager implements CallHost {
  private readonly live = new Set<Live>();
  /** Connections holding a place before their call starts (see `hold`). */
  private readonly pending = new Set<{ name: string; until?: number; call?: string }>();
  private isDraining = false;
  /** Calls whose session is being made (an async factory): they hold a slot already. */
  private opening = 0;
  /** Waiters of `drain`, woken at every change (a call or connection gone, a promise kept). */
  private idle: (() => void)[] = [];
  /** Calls promised a media connection (`promise`): let in during a drain, waited for by it. */
  private readonly promised = new PromisedCalls();
  /** Promised calls let in during a drain, until their `runCall`. */
  private readonly admitted = new Set<string>();

  constructor(private readonly o: CallManagerOptions) {}

  warn(warning: ServerWarning): void {
    try {
      this.o.onWarning?.(warning);
    } catch (err) {
      this.o.logger.warn({ err: (err as Error).message }, 'a warning hook failed');
    }
  }

  get draining(): boolean {
    return this.isDraining;
  }

  get active(): number {
    return this.live.size + this.opening;
  }

  publicUrl: CallHost['publicUrl'] = (req) => this.o.publicUrl(req);

  /** Places held by connections whose call has not started. */
  get held(): number {
    return this.pending.size;
  }

  promise(key: string, until: number, o: PromiseOptions = {}): void {
    this.promised.promise(key, until, o, Date.now());
  }

  answered(key: string): void {
    if (this.promised.answered(key, Date.now())) this.wakeIdle();
  }

  withdraw(key: string): void {
    if (this.promised.withdraw(key)) this.wakeIdle();
  }

  hold(o: HoldOptions = {}):
    | {
        /** Gives the held place back. */
        release(): void;
      }
    | undefined {
    // The platform connected for this call: kept or refused, the promise is settled (a drain stops waiting for it).
    const promised = o.call ? this.promised.settle(o.call, Date.now()) : false;
    if ((this.isDraining && !promised) || this.live.size + this.pending.size >= (this.o.maxCalls ?? 200)) {
      this.o.metrics.calls.inc({ provider: o.provider ?? 'unknown', outcome: 'refused' });
      this.wakeIdle();
      return undefined;
    }
    // While draining, the promise is kept: this call's `runCall` is let through.
    if (o.call && this.isDraining) this.admitted.add(o.call);
    // Named for the drain's log: the call when a token names it, else the adapter.
    const entry = { name: o.call ?? o.provider ?? 'unknown', ...(o.until !== undefined ? { until: o.until } : {}), ...(o.call ? { call: o.call } : {}) };
    this.pending.add(entry);
    return {
      release: () => {
        this.pending.delete(entry);
        this.wakeIdle();
      },
    };
  }

  async runCall(transport: Transport, observer?: CallObserver): Promise<CallOutcome> {
    const provider = transport.call.provider;
    const refuse = (reason: 'draining' | 'full') => {
      this.o.metrics.calls.inc({ provider, outcome: 'refused' });
      return new CallRefused(reason);
    };
    // While draining, only a call promised before it (a webhook answered, its media let in) runs.
    const promised = this.isDraining && this.admitted.delete(`${provider}:${transport.call.callId}`);
    if (this.isDraining && !promised) throw refuse('draining');
    if (this.active >= (this.o.maxCalls ?? 200)) throw refuse('full');
    const log = this.o.logger.child({ provider, call: transport.call.callId });
    if (!this.o.admission) return this.run(transport, log, observer);
    const lease = await this.o.admission.admit(
      transport,
      {
        waiting: (position) => {
          try {
            this.o.onCallWaiting?.(transport, position);
          } catch (err) {
            log.warn({ err: (err as Error).message }, 'call-waiting hook failed');
          }
        },
      },
      promised ? { promised } : undefined,
    );
    if (!lease) {
      this.o.metrics.calls.inc({ provider, outcome: 'refused' });
      return 'refused';
    }
    try {
      return await this.run(transport, log, observer);
    } finally {
      await lease.release().catch((err: Error) => log.warn({ err: err.message }, 'could not give back the call\'s slots; they expire with the lease'));
    }
  }

  private async run(transport: Transport, log: Logger, observer?: CallObserver): Promise<CallOutcome> {
    const provider = transport.call.provider;
    let session: RunningSession;
    // The slot is held while an async factory works (an agent chosen per call).
    this.opening++;
    try {
      session = await this.o.sessions(transport);
      this.opening--;
    } catch (err) {
      this.opening--;
      // A factory may refuse a call on purpose (no agent for the number dialled): not a failure.
      const outcome = err instanceof CallRefused ? 'refused' : 'failed';
      if (outcome === 'refused') log.warn({ err: (err as Error).message }, 'call refused before its session');
      else log.error({ err: (err as Error).message }, 'could not create the session');
      this.o.metrics.calls.inc({ provider, outcome });
      if (outcome === 'failed') {
        const said = await (this.o.sayFailure?.(transport) ?? Promise.resolve(false)).catch((e: Error) => {
          log.warn({ err: e.message }, 'could not say the out-of-service line');
          return false;
        });
        log.info({ outcome, reason: 'the session could not be made', line: said ? 'out of service' : 'none' }, 'call ended');
      }
      await transport.output.close().catch(() => {});
      if (outcome === 'failed') this.ended(transport, outcome, log);
      this.wakeIdle();
      return outcome;
    }
    this.o.metrics.callStarted(provider);
    let fatal = false;
    let failures = 0;
    let action: CallOutcome | undefined;
    const sub = session.events$.subscribe({
      next: (e) => {
        if (e.type === 'error') failures++;
        if (e.type === 'error' && e.fatal) fatal = true;
        if (e.type === 'call_action' && e.ok) action = e.action === 'transfer' ? 'transferred' : 'agent-hangup';
        try {
          observer?.onEvent?.(e);
        } catch (err) {
          log.warn({ err: (err as Error).message }, 'call observer failed');
        }
        this.told(transport, provider, e, log);
      },
      error: () => {},
    });
    // A given-up tool answering once the call is over still counts (metrics, the server's events):
    // the subscription goes with the session, which nothing holds once its tools have answered.
    session.afterEnd$?.subscribe({ next: (e) => this.told(transport, provider, e, log), error: () => {} });
    let report: CallReport | undefined;
    const done = session.run().then(
      (r) => {
        // Kept whatever the outcome: a call the agent hung up (a tool, answering-machine detection) has its report too.
        report = r;
        return action ?? outcomeOf(r.ended, fatal);
      },
      (err) => {
        log.error({ err: (err as Error).message }, 'session failed');
        return 'failed' as const;
      },
    );
    const entry: Live = { transport, session, done };
    this.live.add(entry);
    log.info({ from: transport.call.from ? 'present' : 'absent' }, 'call started');
    const outcome = await done;
    sub.unsubscribe();
    this.live.delete(entry);
    this.o.metrics.callEnded(provider, outcome);
    // One line answers why and how long: the session's end reason (never the caller's words), its length, turns and failures.
    // A transfer's reason names its target's number: hidden (HIWAR_LOG_KEYS=1 shows it). Runs of
    // seven digits or more only: an end reason holds no PIN, and its close codes (1006) stay readable.
    const reason = report && (globalThis.process?.env?.HIWAR_LOG_KEYS === '1' ? report.ended : redactDigitRuns(report.ended, 7));
    const told = report ? { reason, seconds: report.durationSeconds, callerTurns: report.turns.filter((t) => t.role === 'user').length } : {};
    log.info({ outcome, ...told, failures }, 'call ended');
    this.ended(transport, outcome, log, report);
    this.wakeIdle();
    return outcome;
  }

  /** One session event to the metrics and `onSessionEvent`, each of whose failures is logged. */
  private told(transport: Transport, provider: string, e: SessionEvent, log: Logger): void {
    try {
      this.o.metrics.observe(provider, e);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'metrics failed');
    }
    // Apart from the metrics: a metric that throws must not hide the event from /readyz.
    try {
      this.o.onSessionEvent?.(e, transport);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'session event hook failed');
    }
  }

  /** `onCallEnded`, whose failure is logged. */
  private ended(transport: Transport, outcome: CallOutcome, log: Logger, report?: CallReport): void {
    try {
      this.o.onCallEnded?.(transport, report, outcome);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'call-ended hook failed');
    }
  }

  private wakeIdle(): void {
    for (const r of this.idle.splice(0)) r();
  }

  private busy(now: number): boolean {
    return this.active > 0 || this.pending.size > 0 || this.promised.waitUntil(now) !== undefined;
  }

  /**
   * What a drain starting now waits for: running calls, connections whose call has not started,
   * the calls (`provider:callId`) a webhook answer promised media for, and placed calls ringing.
   */
  waitingFor(now = Date.now()): DrainWaiting {
    const awaited = this.promised.awaited(now);
    const last = (list: typeof awaited) => (list.length ? Math.max(...list.map(([, t]) => t.waitUntil)) : undefined);
    const media = awaited.filter(([, t]) => !t.placed);
    const ringing = awaited.filter(([, t]) => t.placed);
    const conns = [...this.pending];
    const connectingUntil = conns.length && conns.every((c) => c.until !== undefined) ? Math.max(...conns.map((c) => c.until!)) : undefined;
    return {
      calls: this.active,
      connecting: conns.length,
      connections: conns.map((c) => c.name),
      ...(connectingUntil !== undefined ? { connectingUntil } : {}),
      media: media.map(([k]) => k),
      mediaUntil: last(media),
      ringing: ringing.map(([k]) => k),
      ringingUntil: last(ringing),
    };
  }

  /** Says what the drain waits for (a drain of nothing says nothing); returns the promised calls it waits for. */
  private logDrainStart(now: number): { media: string[]; ringing: string[] } {
    const w = this.waitingFor(now);
    const line = describeDrainWait(w, now);
    if (line) this.o.logger.info({ calls: w.calls, connecting: w.connecting, media: w.media, ringing: w.ringing }, line);
    return { media: w.media, ringing: w.ringing };
  }

  /**
   * Refuses new calls from now on; resolves once every running call has ended, every connection
   * not started yet has gone, and every call promised by a webhook answer or placed here has come,
   * ended unanswered, or was waited for long enough (or `timeoutMs` passed: the remaining calls
   * are then ended). A placed call still ringing then is cancelled with its platform.
   */
  async drain(timeoutMs = 600_000): Promise<void> {
    this.isDraining = true;
    // A connection open before the drain whose start comes during it is waited for: so it runs.
    for (const c of this.pending) if (c.call) this.admitted.add(c.call);
    const deadline = Date.now() + timeoutMs;
    const awaited = this.logDrainStart(Date.now());
    // The ledger is asked on its own beat, however often a change wakes the loop.
    let ask = Date.now() + DRAIN_DEFAULTS.mediaCheckMs;
    while (this.busy(Date.now()) && Date.now() < deadline) {
      const now = Date.now();
      const awaiting = this.promised.awaited(now).map(([k]) => k);
      const asking = !!this.o.ledger?.spent && awaiting.length > 0;
      const wake = Math.min(deadline, this.promised.waitUntil(now) ?? Infinity, asking ? ask : Infinity) - now;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((r) => {
        this.idle.push(r);
        timer = setTimeout(r, Math.max(1, wake));
      });
      clearTimeout(timer);
      if (asking && Date.now() >= ask) {
        ask = Date.now() + DRAIN_DEFAULTS.mediaCheckMs;
        for (const k of await connectedElsewhere(awaiting.filter((k) => this.promised.has(k)), this.o.ledger, this.o.logger)) this.withdraw(k);
      }
    }
    // As they stand now: a placed call answered during the drain waits for its media as a webhook answer's.
    const left = [...awaited.media, ...awaited.ringing].filter((k) => this.promised.has(k));
    const never = left.filter((k) => !this.promised.get(k)!.placed);
    // Placed calls still ringing: answered now, they would reach a server gone; hung up instead.
    const ringing = left.filter((k) => this.promised.get(k)!.placed);
    // Answered, no media here: a placed one's may have reached another instance; if not, it is hung up.
    if (never.length) await settleNoMedia(never.map((key) => ({ key, noMedia: this.promised.get(key)?.noMedia })), this.o.logger);
    if (ringing.length) await cancelRinging(ringing.map((key) => ({ key, cancel: this.promised.get(key)?.cancel })), this.o.logger);
    for (const k of ringing) this.withdraw(k);
    if (this.active === 0) return;
    this.o.logger.warn({ calls: this.live.size }, 'drain timed out; ending the remaining calls with their closing line');
    await Promise.all([...this.live].map((c) => endWithLine(c.session, SHUTDOWN_REASON, DRAIN_DEFAULTS.closingLineMaxMs)));
    while (this.active > 0) await new Promise<void>((r) => this.idle.push(r));
  }
}
