/**
 * The registry of the calls a server placed (`OutboundCalls`): placing, the platforms' callbacks,
 * the sessions' summaries and cancels, each a change to the call's record. What a call is, the
 * waiters of an outcome and the no-media watch are their own modules (outbound-call.ts,
 * outcome-waiters.ts, no-media.ts).
 */
import { randomUUID } from 'node:crypto';
import { isDialId, type SlotKeeper } from '../../../src/campaign/slots.ts';
import { DRAIN_DEFAULTS } from '../../../src/server/calls.ts';
import { CallRefused, type NoMediaResult } from '../../../src/server/types.ts';
import { missingVariables } from '../../../src/session/variables.ts';
import { CALL_RECORDS_DEFAULTS, fold, MemoryCallRecords, type CallChange, type CallRecords, type CallSessionSummary } from './records.ts';
import { NoMediaWatch } from './no-media.ts';
import { OUTBOUND_DEFAULTS, type CallUrls, type OutboundCall, type OutboundContext, type PlaceCallRequest } from './outbound-call.ts';
import { OutcomeWaiters, ready } from './outcome-waiters.ts';
import { checkPlaceRequest, PlaceCallError } from './place-request.ts';
import { DialError, type OutboundPlatform, type OutboundPlatformName, type StatusUpdate } from './types.ts';

export { PlaceCallError } from './place-request.ts';
export { OUTBOUND_DEFAULTS, type CallUrls, type OutboundCall, type OutboundContext, type PlaceCallRequest } from './outbound-call.ts';

/**
 * The calls this server placed: checks a request, dials through the platform's client, and keeps
 * each call's record as the platform's callbacks and the call's session report it. The records
 * live in `records`: this process's memory by default (a restarted server forgets its calls and
 * refuses their callbacks), Redis on a cluster (any instance takes any call's callbacks).
 */
export class OutboundCalls {
  /** The last known record of calls placed or read here, for `get` and the waiters. */
  private readonly known = new Map<string, OutboundCall>();
  /** Who waits for a call's outcome (and its session's summary). */
  private readonly waiters: OutcomeWaiters;
  /** Campaign calls known live here (their callbacks came here, or their session runs here): id → dial id. */
  private readonly live = new Map<string, string>();
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
    this.waiters = new OutcomeWaiters((id) => this.known.get(id), o.sessionWaitMs ?? OUTBOUND_DEFAULTS.sessionWaitMs);
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
      if (this.waiters.has(id) || this.live.has(id) || this.placedHere.has(id)) void this.refresh(id).catch(() => {});
    }).catch((err: Error) => this.ctx.logger?.warn({ err: err.message }, 'outbound: cannot follow other instances\' changes'));
    // A respawned worker: the calls its predecessor placed and left unfinished are followed here.
    void this.records
      .orphans?.()
      .then((ids) => Promise.all(ids.map((id) => this.adopt(id))))
      .catch((err: Error) => this.ctx.logger?.warn({ err: err.message }, 'outbound: the calls the previous worker placed could not be taken over'));
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
    this.followHere(id);
    const u = urls(id, platform, parameters);
    const ringTimeoutS = this.o.ringTimeoutS ?? OUTBOUND_DEFAULTS.ringTimeoutS;
    // Promised before the dial (the callee may answer before its response).
    this.promiseMedia(call, Date.now());
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

  /**
   * Takes over a call placed by the process this one replaces (a respawned worker's
   * predecessor): followed here as if placed here, so a drain waits for it and cancels it while
   * it rings, and an answered one whose media never comes is hung up.
   */
  private async adopt(id: string): Promise<void> {
    const call = await this.lookup(id);
    if (!call || call.outcome || this.placedHere.has(id)) return;
    this.known.set(id, call);
    this.followHere(id);
    this.promiseMedia(call);
    if (call.status === 'answered') {
      this.ctx.host?.answered?.(`${call.platform}:${id}`);
      this.media.answered(id);
    }
    this.ctx.logger?.info({ call: id, platform: call.platform, status: call.status }, 'outbound call taken over from the worker that placed it');
  }

  /**
   * A drain waits while the placed call rings and lets the answered call's media in; one still
   * ringing when the drain stops waiting is hung up with the platform, and one answered whose
   * media never came, too (`noMedia`). Counted from `placedAt`: now for a call being placed (its
   * record's time, in whole ms, would take a millisecond off), else its record's.
   */
  private promiseMedia(call: OutboundCall, placedAt = Date.parse(call.createdAt)): void {
    const ringMs = (this.o.ringTimeoutS ?? OUTBOUND_DEFAULTS.ringTimeoutS) * 1000;
    const since = Math.max(0, Date.now() - placedAt);
    this.ctx.host?.promise?.(`${call.platform}:${call.id}`, placedAt + ringMs + this.ctx.tokens.ttlMs, {
      placed: true,
      waitMs: Math.max(0, ringMs + DRAIN_DEFAULTS.promisedMediaWaitMs - since),
      cancel: () => this.cancel(call.id, 'draining'),
      noMedia: () => this.noMedia(call.id),
    });
  }

  /** Follows a call as one placed here (bounded as the records are: the oldest placed go first). */
  private followHere(id: string): void {
    this.placedHere.add(id);
    if (this.placedHere.size > CALL_RECORDS_DEFAULTS.maxCalls) this.placedHere.delete(this.placedHere.values().next().value!);
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
      this.waiters.add(c, resolve, !!o.session);
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
    this.waiters.sessionStarted(id);
    if (!this.o.slots) return;
    const call = this.known.get(id) ?? (await this.lookup(id));
    if (call && !call.outcome) this.keepLive(call, 'session');
  }

  /** The call's session here ended: this instance no longer keeps its slot for it (its callbacks may). */
  sessionEnded(id: string): void {
    this.waiters.sessionEnded(id);
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
    if (call.outcome) this.waiters.settle(id, call);
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
}
