import { randomUUID } from 'node:crypto';
import { isDialId, type SlotKeeper } from '../../../src/campaign/slots.ts';
import { DRAIN_DEFAULTS } from '../../../src/server/calls.ts';
import type { TokenLedger } from '../../../src/server/token-ledger.ts';
import type { CallTokens } from '../../../src/server/tokens.ts';
import { CallRefused, type CallHost, type NoMediaResult } from '../../../src/server/types.ts';
import type { Agent } from '../../../src/session/agent.ts';
import type { Logger } from '../../../src/session/logger.ts';
import { missingVariables } from '../../../src/session/variables.ts';
import type { CallInfo } from '../../../src/transport/types.ts';
import { CALL_RECORDS_DEFAULTS, fold, MemoryCallRecords, type CallChange, type CallRecords, type CallSessionSummary } from './records.ts';
import { NoMediaWatch } from './no-media.ts';
import { checkPlaceRequest, PlaceCallError } from './place-request.ts';
import { DialError, type OutboundPlatform, type OutboundPlatformName, type OutboundStatus, type StatusUpdate } from './types.ts';

export { PlaceCallError } from './place-request.ts';

/** Defaults of outbound calling, in one place. */
export const OUTBOUND_DEFAULTS = {
  /** Seconds the phone rings before the call counts as `no-answer`. */
  ringTimeoutS: 30,
  /**
   * How long the outcome of an answered call waits for its session's summary (the instance running
   * it may have died). A session still running in this process is waited for to its end, however
   * long a starved machine makes it; this wait then starts when it ends.
   */
  sessionWaitMs: 15_000,
  /** A dead worker's call is asked of the platform this often until it has ended, for at most `recoverMaxMs`. */
  recoverPollMs: 10_000,
  recoverMaxMs: 4 * 3600_000,
  /**
   * A dead worker's call that no instance has heard of from the platform yet (no platform id) is
   * looked up again for this long before it counts as `failed-unknown`: its dial may have reached
   * the platform just before the worker died, and its callbacks, on another instance, bring the id.
   */
  recoverUnheardMs: 30_000,
  /** A campaign's call with no final callback after this long is asked of the platform (its last callback may be lost). */
  askAfterMs: 2 * 3600_000,
  /**
   * An answered call whose media has not connected this long after the platform said it was
   * answered (to this instance or, on a cluster, another: the shared token ledger says) is hung up
   * with its platform (`hangUpRequested: 'no-media'`): the callee would hear silence, billed, until
   * they hung up. Platforms connect within a second or two; a drain waits this long too.
   * Counted in run time: a stall of this process does not hang up a call whose media arrived meanwhile.
   */
  mediaWaitMs: DRAIN_DEFAULTS.promisedMediaWaitMs,
  /** Variables of one call at most, and characters of one value. */
  maxVariables: 50,
  maxValueLength: 500,
} as const;

/** What placing one call takes. */
export interface PlaceCallRequest {
  /** The number to call, E.164 (`+9665…`). */
  to: string;
  /** The caller ID, E.164; default: the outbound options' `from` (`HIWAR_CALL_FROM`). */
  from?: string;
  /** Default: the only platform configured, else the options' `platform` (`HIWAR_CALL_PLATFORM`). */
  platform?: OutboundPlatformName;
  /** Reach the agent as `ctx.call.info.parameters` and fill `{name}` in its greeting and instructions. */
  variables?: Record<string, string>;
  /** Your name for this call (a campaign's dial id): `byReference` finds the call by it, on any instance. */
  reference?: string;
}

/** One placed call as hiwar knows it (what `GET /calls/:id` answers). */
export interface OutboundCall {
  /** hiwar's id of the call: the `callId` the agent sees. */
  id: string;
  platform: OutboundPlatformName;
  to: string;
  from: string;
  variables: Record<string, string>;
  /** The platform's id (Twilio CallSid, Telnyx call_control_id, Plivo request_uuid, Vonage uuid). */
  platformCallId?: string;
  /** The answered leg's id when the platform names it apart (Plivo's CallUUID). */
  platformLegId?: string;
  /** The request's `reference` (a campaign's dial id). */
  reference?: string;
  status: OutboundStatus;
  /** Set once final: busy, no-answer, failed, canceled or completed. */
  outcome?: Exclude<OutboundStatus, 'queued' | 'ringing' | 'answered'>;
  /** The platform's last status word (`no-answer`, `user_busy`, `unanswered`…). */
  rawStatus?: string;
  /** Seconds the answered call lasted (the platform's figure, else from the callbacks' times). */
  durationS?: number;
  /**
   * Set once hiwar asked the platform to hang the call up before it was answered, and why:
   * `draining`, the server that placed it stopped waiting for it at its drain's bound.
   */
  cancelRequested?: 'draining';
  /**
   * Set once hiwar asked the platform to hang the answered call up, and why: `no-media`, its
   * media never connected (`OUTBOUND_DEFAULTS.mediaWaitMs` after the answer, on any instance).
   * The call is then `completed` (`rawStatus` `hung up by hiwar (no media came)`); a campaign
   * counts it as `no-media`.
   */
  hangUpRequested?: 'no-media';
  /** Why the dial failed, when it did (the platform's message). */
  error?: string;
  createdAt: string;
  answeredAt?: string;
  endedAt?: string;
  /** What the answered call's session learnt, once it ended: who answered (AMD), the transcript. */
  session?: CallSessionSummary;
}

/** What the registry needs from the server it runs in. */
export interface OutboundContext {
  tokens: CallTokens;
  logger?: Logger;
  /** The agent the call would get; its variables are checked before dialling. */
  agentOf?(call: CallInfo): Promise<Agent | undefined>;
  /**
   * The server the calls' media comes back to: nothing is dialled while it drains, and a drain
   * waits for a placed call while it rings (its media is let in once answered).
   */
  host?: Pick<CallHost, 'draining' | 'promise' | 'answered' | 'withdraw' | 'warn'>;
  /**
   * Where media connections spend their tokens (the server's, a cluster's in Redis or the
   * machine's primary): whether an answered call's media reached any instance. Without `spent`,
   * no call is hung up for want of media.
   */
  ledger?: Pick<TokenLedger, 'spent'>;
}

/** The URLs one call's platform is handed, made from the server's public address. */
export interface CallUrls {
  stream: string;
  answer: string;
  status: string;
  after: string;
}

/** How a call's outcome is awaited. */
interface Waiter {
  resolve(c: OutboundCall): void;
  /** Also wait (up to `sessionWaitMs`) for the answered call's session summary. */
  session: boolean;
}

/**
 * The calls this server placed: checks a request, dials through the platform's client, and keeps
 * each call's record as the platform's callbacks and the call's session report it. The records
 * live in `records`: this process's memory by default (a restarted server forgets its calls and
 * refuses their callbacks), Redis on a cluster (any instance takes any call's callbacks).
 */
export class OutboundCalls {
  /** The last known record of calls placed or read here, for `get` and the waiters. */
  private readonly known = new Map<string, OutboundCall>();
  private readonly waiting = new Map<string, Waiter[]>();
  /** Campaign calls known live here (their callbacks came here, or their session runs here): id → dial id. */
  private readonly live = new Map<string, string>();
  /** Calls whose session runs in this process: their summary is written here when it ends. */
  private readonly sessionsHere = new Set<string>();
  /** The pending wait for each call's summary (one per call). */
  private readonly deadlines = new Map<string, NodeJS.Timeout>();
  /** Calls placed here not over yet: what other instances learn of them is followed here. */
  private readonly placedHere = new Set<string>();
  /** Answered calls placed here whose media is awaited, hung up if it never comes. */
  private readonly media: NoMediaWatch;
  readonly records: CallRecords;

  constructor(
    private readonly ctx: OutboundContext,
    private readonly o: { platforms: Partial<Record<OutboundPlatformName, OutboundPlatform>>; from?: string; platform?: OutboundPlatformName; ringTimeoutS?: number; records?: CallRecords; sessionWaitMs?: number; mediaWaitMs?: number; onStatus?(call: OutboundCall): void; slots?: SlotKeeper },
  ) {
    this.records = o.records ?? new MemoryCallRecords();
    this.media = new NoMediaWatch({
      lookup: (id) => this.lookup(id),
      change: (id, ch) => this.change(id, ch),
      platforms: o.platforms,
      ...(ctx.ledger ? { ledger: ctx.ledger } : {}),
      ...(ctx.host ? { host: ctx.host } : {}),
      ...(ctx.logger ? { logger: ctx.logger } : {}),
      waitMs: o.mediaWaitMs ?? OUTBOUND_DEFAULTS.mediaWaitMs,
      maxCalls: CALL_RECORDS_DEFAULTS.maxCalls,
    });
    // Another instance took a callback (or ran the session) of a call awaited here.
    void this.records.watch?.((id) => {
      if (this.waiting.has(id) || this.live.has(id) || this.placedHere.has(id)) void this.refresh(id).catch(() => {});
    }).catch((err: Error) => this.ctx.logger?.warn({ err: err.message }, 'outbound: cannot follow other instances\' changes'));
  }

  /** The platforms calls can be placed through. */
  get platforms(): OutboundPlatformName[] {
    return Object.keys(this.o.platforms) as OutboundPlatformName[];
  }

  /** Checks the request, then dials; `urls` makes the platform's URLs for the new call's id. */
  async place(req: PlaceCallRequest, urls: (id: string, platform: OutboundPlatformName, parameters: Record<string, string>) => CallUrls): Promise<OutboundCall> {
    const { platform, client, from, to, variables, reference } = checkPlaceRequest(req, this.o, OUTBOUND_DEFAULTS);
    const id = `out-${randomUUID()}`;
    const parameters = { ...variables, From: from, To: to };
    const agent = await this.ctx.agentOf?.({ callId: id, provider: platform, from, to, direction: 'outbound', parameters });
    if (this.ctx.agentOf && !agent) throw new PlaceCallError(`no agent for a call to ${to}`);
    const missing = agent ? missingVariables(agent, parameters) : [];
    if (missing.length) throw new PlaceCallError(`missing call variable${missing.length > 1 ? 's' : ''}: ${missing.join(', ')} (agent "${agent!.name}" uses ${missing.map((m) => `{${m}}`).join(', ')})`);
    // Its media would come back to a server that refuses new calls: nothing is dialled.
    if (this.ctx.host?.draining) throw new CallRefused('draining');
    const call: OutboundCall = { id, platform, to, from, variables, status: 'queued', createdAt: new Date().toISOString(), ...(reference ? { reference } : {}) };
    // Recorded before the dial: a callback may come before the dial request's answer.
    await this.records.create(call);
    this.known.set(id, call);
    this.placedHere.add(id);
    if (this.placedHere.size > CALL_RECORDS_DEFAULTS.maxCalls) this.placedHere.delete(this.placedHere.values().next().value!);
    const u = urls(id, platform, parameters);
    const ringTimeoutS = this.o.ringTimeoutS ?? OUTBOUND_DEFAULTS.ringTimeoutS;
    // Promised before the dial (the callee may answer before its response): a drain starting now
    // waits while the phone rings and lets the answered call's media in.
    // One still ringing when the drain stops waiting is hung up with the platform; one answered
    // whose media never came, too (`noMedia`).
    this.ctx.host?.promise?.(`${platform}:${id}`, Date.now() + ringTimeoutS * 1000 + this.ctx.tokens.ttlMs, { placed: true, waitMs: ringTimeoutS * 1000 + DRAIN_DEFAULTS.promisedMediaWaitMs, cancel: () => this.cancel(id, 'draining'), noMedia: () => this.noMedia(id) });
    try {
      const r = await client.dial({ id, to, from, streamUrl: u.stream, answerUrl: u.answer, statusUrl: u.status, afterUrl: u.after, parameters, ringTimeoutS });
      this.ctx.logger?.info({ call: id, platform }, 'outbound call placed');
      return await this.change(id, { kind: 'dialled', at: new Date().toISOString(), ...(r.platformCallId ? { platformCallId: r.platformCallId } : {}) });
    } catch (err) {
      const message = (err as Error).message;
      this.ctx.logger?.warn({ call: id, platform, err: message }, 'outbound call could not be placed');
      this.ctx.host?.withdraw?.(`${platform}:${id}`);
      await this.change(id, { kind: 'dial-failed', at: new Date().toISOString(), raw: err instanceof DialError ? `http-${err.status}` : 'dial-error', error: message }).catch(() => {});
      throw err;
    }
  }

  /** A call's last known record here (placed here, or read here before), or undefined: `lookup` reads the shared records. */
  get(id: string): OutboundCall | undefined {
    const c = this.known.get(id);
    return c && { ...c };
  }

  /** A call's record as the records hold it now (placed on any instance of a cluster), or undefined. */
  async lookup(id: string): Promise<OutboundCall | undefined> {
    const r = await this.records.read(id);
    return r && fold(r.call, r.changes);
  }

  /** The call placed with this `reference` (a campaign's dial id), on any instance of a cluster. */
  async byReference(reference: string): Promise<OutboundCall | undefined> {
    const id = await this.records.byReference(reference);
    return id ? this.lookup(id) : undefined;
  }

  /**
   * Resolves with the call once its outcome is final; with `session`, an answered call's record
   * also waits (at most `sessionWaitMs`) for what its session learnt (who answered, the transcript).
   */
  outcome(id: string, o: { session?: boolean } = {}): Promise<OutboundCall> {
    const c = this.known.get(id);
    if (!c) return Promise.reject(new Error(`no outbound call ${id}`));
    if (c.outcome && (!o.session || ready(c))) return Promise.resolve({ ...c });
    return new Promise((resolve) => {
      this.waiting.set(id, [...(this.waiting.get(id) ?? []), { resolve, session: !!o.session }]);
      if (o.session && c.outcome) this.sessionDeadline(id);
      // Another instance may have recorded the outcome before this wait began.
      void this.refresh(id).catch(() => {});
    });
  }

  /** Applies one status callback of `platform` to call `id` (any instance's call); false when the call is unknown. */
  async report(id: string, platform: OutboundPlatformName, params: Record<string, string>): Promise<boolean> {
    const known = this.known.get(id) ?? (await this.lookup(id));
    if (!known || known.platform !== platform) return false;
    const update = this.o.platforms[platform]?.status(params);
    const call = update ? await this.change(id, { kind: 'status', at: new Date().toISOString(), update }) : known;
    // A campaign call heard of here is live: its slot is kept from here until its outcome is known (whichever worker placed it).
    if (!call.outcome) this.keepLive(call, 'callbacks');
    return true;
  }

  /** An outbound call's session started here: its campaign slot (if any) is kept while the session runs. */
  async sessionStarted(id: string): Promise<void> {
    this.sessionsHere.add(id);
    if (!this.o.slots) return;
    const call = this.known.get(id) ?? (await this.lookup(id));
    if (call && !call.outcome) this.keepLive(call, 'session');
  }

  /** The call's session here ended: this instance no longer keeps its slot for it (its callbacks may). */
  sessionEnded(id: string): void {
    this.sessionsHere.delete(id);
    // Its summary follows; the wait for it starts now, unless the outcome is not known yet (the
    // platform's last callback then starts it): a waiter must never get a call with no outcome.
    if (this.waiting.has(id) && this.known.get(id)?.outcome) this.sessionDeadline(id);
    const ref = this.live.get(id);
    if (ref) this.o.slots?.letGo(ref, 'session');
  }

  private keepLive(call: OutboundCall, reason: string): void {
    if (!this.o.slots || !call.reference || !isDialId(call.reference)) return;
    this.live.set(call.id, call.reference);
    if (this.live.size > CALL_RECORDS_DEFAULTS.maxCalls) this.live.delete(this.live.keys().next().value!);
    this.o.slots.keep(call.reference, reason);
  }

  /** Records what the call's session learnt (its report, once it ended); false when no outbound call has that id. */
  async noteSession(id: string, session: CallSessionSummary): Promise<boolean> {
    if (!(await this.records.append(id, { kind: 'session', at: new Date().toISOString(), session }))) return false;
    await this.refresh(id);
    return true;
  }

  /**
   * Asks the call's platform how the call stands (its call resource) and records a status it
   * reports, for a call whose callbacks were lost (the instance they were sent to died). `said`
   * is the platform's answer: undefined when it cannot say (no such call, or an ended call whose
   * resource does not say how it ended).
   */
  async ask(id: string): Promise<{ call: OutboundCall; said?: StatusUpdate } | undefined> {
    const call = await this.lookup(id);
    const client = call && this.o.platforms[call.platform];
    if (!call || call.outcome || !client?.fetchStatus) return call && { call };
    const said = await client.fetchStatus(call);
    if (!said) return { call };
    return { call: await this.change(id, { kind: 'status', at: new Date().toISOString(), update: said }), said };
  }

  /**
   * Hangs up a call not answered yet through its platform (a drain at its bound). The request is
   * recorded before it goes, so the outcome tells it apart from a callee's cancel whichever
   * report comes first; once the platform took it, the call is `canceled` here at once, without
   * waiting for a callback a stopping server may never take. False when there was nothing to
   * cancel: over, answered, or the platform no longer had such a call (or has no cancel).
   */
  async cancel(id: string, reason: 'draining'): Promise<boolean> {
    const call = this.known.get(id) ?? (await this.lookup(id));
    const client = call && this.o.platforms[call.platform];
    if (!call || call.outcome || call.status === 'answered' || !client?.cancel) return false;
    await this.change(id, { kind: 'cancel', at: new Date().toISOString(), reason });
    if (!(await client.cancel(call))) return false;
    this.ctx.logger?.info({ call: id, platform: call.platform }, `outbound call cancelled (server ${reason})`);
    await this.change(id, { kind: 'status', at: new Date().toISOString(), update: { status: 'canceled', raw: `canceled by hiwar (server ${reason})` } });
    return true;
  }

  /** An answered call placed here whose media has not come: what became of it (`NoMediaWatch.check`). */
  noMedia(id: string): Promise<NoMediaResult> {
    return this.media.check(id);
  }

  /** The client of `platform`, for a route that answers its requests. */
  client(platform: OutboundPlatformName): OutboundPlatform | undefined {
    return this.o.platforms[platform];
  }

  /** Stops following other instances' changes. */
  async close(): Promise<void> {
    this.media.close();
    await this.records.close?.();
  }

  /** Appends a change, then brings this process's view (and its waiters) up to date. */
  private async change(id: string, ch: CallChange): Promise<OutboundCall> {
    if (!(await this.records.append(id, ch))) throw new Error(`no outbound call ${id} (its record expired)`);
    return (await this.refresh(id)) ?? this.known.get(id)!;
  }

  /** Reads the record again; tells the hook of a change and the waiters of an outcome. */
  private async refresh(id: string): Promise<OutboundCall | undefined> {
    const call = await this.lookup(id);
    if (!call) return undefined;
    const before = this.known.get(id);
    this.known.delete(id);
    this.known.set(id, call);
    // The view is bounded as the records are: the oldest read go first.
    if (this.known.size > CALL_RECORDS_DEFAULTS.maxCalls) this.known.delete(this.known.keys().next().value!);
    if (call.outcome && !before?.outcome) await this.ended(call);
    // Answered, its media on its way: a drain waits for it as for a webhook answer's, and no longer
    // cancels it as ringing; the instance that placed it hangs it up if the media never comes.
    else if (call.status === 'answered' && before?.status !== 'answered' && !call.outcome) {
      this.ctx.host?.answered?.(`${call.platform}:${call.id}`);
      if (this.placedHere.has(id)) this.media.answered(id);
    }
    if (call.outcome) this.settle(id, call);
    if (before && before.status === call.status && before.outcome === call.outcome && !!before.session === !!call.session) return call;
    try {
      this.o.onStatus?.({ ...call });
    } catch (err) {
      this.ctx.logger?.warn({ call: id, err: (err as Error).message }, 'onStatus hook failed');
    }
    return call;
  }

  /** The call's outcome is known here: a campaign call's slot is freed for the whole campaign. */
  private async ended(call: OutboundCall): Promise<void> {
    this.live.delete(call.id);
    this.placedHere.delete(call.id);
    this.media.over(call.id);
    // Unanswered (or over): no media will come for it, a drain stops waiting.
    this.ctx.host?.withdraw?.(`${call.platform}:${call.id}`);
    if (!this.o.slots || !call.reference || !isDialId(call.reference)) return;
    await this.o.slots.free(call.reference).catch((err: Error) => this.ctx.logger?.warn({ call: call.id, err: err.message }, 'outbound: a campaign slot could not be freed (its lease runs out)'));
  }

  private settle(id: string, call: OutboundCall): void {
    const list = this.waiting.get(id);
    if (!list) return;
    const left = list.filter((w) => {
      if (w.session && !ready(call)) return true;
      w.resolve({ ...call });
      return false;
    });
    if (left.length) {
      this.waiting.set(id, left);
      this.sessionDeadline(id);
    } else {
      this.waiting.delete(id);
      clearTimeout(this.deadlines.get(id));
      this.deadlines.delete(id);
    }
  }

  /**
   * An answered call's session may have died with its instance: its outcome is given without the
   * summary after a while. Not while the session runs here: its end starts the wait.
   */
  private sessionDeadline(id: string): void {
    if (this.sessionsHere.has(id) || this.deadlines.has(id)) return;
    const timer = setTimeout(() => {
      this.deadlines.delete(id);
      const call = this.known.get(id);
      for (const w of this.waiting.get(id) ?? []) w.resolve({ ...call! });
      this.waiting.delete(id);
    }, this.o.sessionWaitMs ?? OUTBOUND_DEFAULTS.sessionWaitMs).unref();
    this.deadlines.set(id, timer);
  }
}

/** Whether a final record has what its waiters want: an answered call's session summary (none comes for one hung up for want of media). */
const ready = (c: OutboundCall) => !c.answeredAt || !!c.session || c.hangUpRequested === 'no-media';
