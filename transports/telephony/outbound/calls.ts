import { randomUUID } from 'node:crypto';
import type { CallTokens } from '../../../src/server/tokens.ts';
import type { Agent } from '../../../src/session/agent.ts';
import type { Logger } from '../../../src/session/logger.ts';
import { missingVariables } from '../../../src/session/variables.ts';
import type { CallInfo } from '../../../src/transport/types.ts';
import { DialError, E164, FINAL_OUTCOMES, type OutboundPlatform, type OutboundPlatformName, type OutboundStatus, type StatusUpdate } from './types.ts';

/** Defaults of outbound calling, in one place. */
export const OUTBOUND_DEFAULTS = {
  /** Seconds the phone rings before the call counts as `no-answer`. */
  ringTimeoutS: 30,
  /** How long a finished call's record stays readable (`GET /calls/:id`). */
  keepFinishedMs: 24 * 3600_000,
  /** Records kept at most; the oldest finished ones go first. */
  maxCalls: 10_000,
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
  status: OutboundStatus;
  /** Set once final: busy, no-answer, failed, canceled or completed. */
  outcome?: Exclude<OutboundStatus, 'queued' | 'ringing' | 'answered'>;
  /** The platform's last status word (`no-answer`, `user_busy`, `unanswered`…). */
  rawStatus?: string;
  /** Seconds the answered call lasted (the platform's figure, else from the callbacks' times). */
  durationS?: number;
  /** Why the dial failed, when it did (the platform's message). */
  error?: string;
  createdAt: string;
  answeredAt?: string;
  endedAt?: string;
}

/** A request to place a call that is wrong as given (bad number, unknown platform, missing variable): nothing was dialled. */
export class PlaceCallError extends Error {
  override readonly name = 'PlaceCallError';
}

const RANK: Record<OutboundStatus, number> = { queued: 0, ringing: 1, answered: 2, busy: 3, 'no-answer': 3, failed: 3, canceled: 3, completed: 3 };
const NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/** What the registry needs from the server it runs in. */
export interface OutboundContext {
  tokens: CallTokens;
  logger?: Logger;
  /** The agent the call would get; its variables are checked before dialling. */
  agentOf?(call: CallInfo): Promise<Agent | undefined>;
}

/** The URLs one call's platform is handed, made from the server's public address. */
export interface CallUrls {
  stream: string;
  answer: string;
  status: string;
  after: string;
}

/**
 * The calls this server placed: checks a request, dials through the platform's client, and keeps
 * each call's status as the platform's callbacks report it. In memory: a restarted server
 * forgets its calls (their callbacks are then refused).
 */
export class OutboundCalls {
  private readonly calls = new Map<string, OutboundCall>();
  private readonly waiting = new Map<string, ((c: OutboundCall) => void)[]>();

  constructor(
    private readonly ctx: OutboundContext,
    private readonly o: { platforms: Partial<Record<OutboundPlatformName, OutboundPlatform>>; from?: string; platform?: OutboundPlatformName; ringTimeoutS?: number; onStatus?(call: OutboundCall): void },
  ) {}

  /** The platforms calls can be placed through. */
  get platforms(): OutboundPlatformName[] {
    return Object.keys(this.o.platforms) as OutboundPlatformName[];
  }

  /** Checks the request, then dials; `urls` makes the platform's URLs for the new call's id. */
  async place(req: PlaceCallRequest, urls: (id: string, platform: OutboundPlatformName, parameters: Record<string, string>) => CallUrls): Promise<OutboundCall> {
    const { platform, client, from, to, variables } = this.check(req);
    const id = `out-${randomUUID()}`;
    const parameters = { ...variables, From: from, To: to };
    const agent = await this.ctx.agentOf?.({ callId: id, provider: platform, from, to, direction: 'outbound', parameters });
    if (this.ctx.agentOf && !agent) throw new PlaceCallError(`no agent for a call to ${to}`);
    const missing = agent ? missingVariables(agent, parameters) : [];
    if (missing.length) throw new PlaceCallError(`missing call variable${missing.length > 1 ? 's' : ''}: ${missing.join(', ')} (agent "${agent!.name}" uses ${missing.map((m) => `{${m}}`).join(', ')})`);
    const call: OutboundCall = { id, platform, to, from, variables, status: 'queued', createdAt: new Date().toISOString() };
    this.remember(call);
    const u = urls(id, platform, parameters);
    try {
      const r = await client.dial({ id, to, from, streamUrl: u.stream, answerUrl: u.answer, statusUrl: u.status, afterUrl: u.after, parameters, ringTimeoutS: this.o.ringTimeoutS ?? OUTBOUND_DEFAULTS.ringTimeoutS });
      if (r.platformCallId) call.platformCallId = r.platformCallId;
      this.ctx.logger?.info({ call: id, platform }, 'outbound call placed');
    } catch (err) {
      const message = (err as Error).message;
      this.ctx.logger?.warn({ call: id, platform, err: message }, 'outbound call could not be placed');
      this.apply(call, { status: 'failed', raw: err instanceof DialError ? `http-${err.status}` : 'dial-error' });
      call.error = message;
      throw err;
    }
    return { ...call };
  }

  /** A call's record, or undefined. */
  get(id: string): OutboundCall | undefined {
    const c = this.calls.get(id);
    return c && { ...c };
  }

  /** Resolves with the call once its outcome is final. */
  outcome(id: string): Promise<OutboundCall> {
    const c = this.calls.get(id);
    if (!c) return Promise.reject(new Error(`no outbound call ${id}`));
    if (c.outcome) return Promise.resolve({ ...c });
    return new Promise((resolve) => this.waiting.set(id, [...(this.waiting.get(id) ?? []), resolve]));
  }

  /** Applies one status callback of `platform` to call `id`; false when the call is unknown. */
  report(id: string, platform: OutboundPlatformName, params: Record<string, string>): boolean {
    const call = this.calls.get(id);
    if (!call || call.platform !== platform) return false;
    const update = this.o.platforms[platform]?.status(params);
    if (update) this.apply(call, update);
    return true;
  }

  /** The client of `platform`, for a route that answers its requests. */
  client(platform: OutboundPlatformName): OutboundPlatform | undefined {
    return this.o.platforms[platform];
  }

  private check(req: PlaceCallRequest) {
    if (!req || typeof req !== 'object') throw new PlaceCallError('a call needs {"to": "+9665…"}');
    const to = String(req.to ?? '');
    if (!E164.test(to)) throw new PlaceCallError(`"to" must be an E.164 number (+ then 8 to 15 digits), got "${to}"`);
    const from = String(req.from ?? this.o.from ?? '');
    if (!E164.test(from)) throw new PlaceCallError(from ? `"from" must be an E.164 number, got "${from}"` : 'no caller ID: give "from" (or set HIWAR_CALL_FROM)');
    const names = this.platforms;
    const platform = req.platform ?? this.o.platform ?? (names.length === 1 ? names[0] : undefined);
    if (!platform) throw new PlaceCallError(names.length ? `several platforms are configured (${names.join(', ')}): say which ("platform")` : 'no platform is configured for outbound calls (docs/outbound.md)');
    const client = this.o.platforms[platform];
    if (!client) throw new PlaceCallError(`platform "${platform}" is not configured for outbound calls${names.length ? ` (configured: ${names.join(', ')})` : ''}`);
    const variables: Record<string, string> = {};
    const given = req.variables ?? {};
    if (typeof given !== 'object' || Array.isArray(given)) throw new PlaceCallError('"variables" must be an object of name → text');
    const entries = Object.entries(given);
    if (entries.length > OUTBOUND_DEFAULTS.maxVariables) throw new PlaceCallError(`at most ${OUTBOUND_DEFAULTS.maxVariables} variables`);
    for (const [k, v] of entries) {
      if (!NAME.test(k)) throw new PlaceCallError(`variable name "${k}": letters, digits and _ only, not starting with a digit`);
      if (typeof v !== 'string' && typeof v !== 'number') throw new PlaceCallError(`variable "${k}" must be text`);
      if (String(v).length > OUTBOUND_DEFAULTS.maxValueLength) throw new PlaceCallError(`variable "${k}" is longer than ${OUTBOUND_DEFAULTS.maxValueLength} characters`);
      variables[k] = String(v);
    }
    return { platform, client, from, to, variables };
  }

  private apply(call: OutboundCall, u: StatusUpdate): void {
    if (u.platformCallId && !call.platformCallId) call.platformCallId = u.platformCallId;
    // Callbacks may come late or twice: a call never goes back, and a final outcome stays.
    if (call.outcome || RANK[u.status] < RANK[call.status]) return;
    const now = new Date();
    call.status = u.status;
    call.rawStatus = u.raw;
    if (u.status === 'answered') call.answeredAt ??= now.toISOString();
    if (FINAL_OUTCOMES.has(u.status)) {
      call.outcome = u.status as OutboundCall['outcome'];
      call.endedAt = now.toISOString();
      if (u.durationS !== undefined) call.durationS = u.durationS;
      else if (u.status === 'completed' && call.answeredAt) call.durationS = Math.round((now.getTime() - Date.parse(call.answeredAt)) / 1000);
      for (const r of this.waiting.get(call.id) ?? []) r({ ...call });
      this.waiting.delete(call.id);
    }
    try {
      this.o.onStatus?.({ ...call });
    } catch (err) {
      this.ctx.logger?.warn({ call: call.id, err: (err as Error).message }, 'onStatus hook failed');
    }
  }

  private remember(call: OutboundCall): void {
    const now = Date.now();
    for (const [id, c] of this.calls) {
      const old = c.endedAt && now - Date.parse(c.endedAt) > OUTBOUND_DEFAULTS.keepFinishedMs;
      if (old || (this.calls.size >= OUTBOUND_DEFAULTS.maxCalls && c.outcome)) this.calls.delete(id);
      if (!old && this.calls.size < OUTBOUND_DEFAULTS.maxCalls) break;
    }
    this.calls.set(call.id, call);
  }
}
