/**
 * Where placed calls' records live. A record is the call as placed (`OutboundCall`, queued)
 * and the list of what happened to it since (the dial's answer, each status callback read, what
 * its session learnt), in arrival order: the current record is that list folded (`fold`). Any
 * instance may append (a callback or a media stream may reach any instance behind a load
 * balancer); appending never overwrites, so two instances' callbacks never undo each other.
 * In memory for one process (`MemoryCallRecords`), in Redis for a cluster (`RedisCallRecords`).
 */
import type { AmdClass } from '../../../src/amd/options.ts';
import type { AmdReport } from '../../../src/session/answer-detection.ts';
import type { CallReport } from '../../../src/session/events.ts';
import type { OutboundCall } from './outbound-call.ts';
import { FINAL_OUTCOMES, type OutboundStatus, type StatusUpdate } from './types.ts';

/** What the answered call's session learnt, once it ended (on whichever instance ran it). */
export interface CallSessionSummary {
  /** Answering-machine detection's decision, when the agent detects. */
  amd?: { class: AmdClass; action: AmdReport['action']; decisionMs: number };
  /** What was said, as `agent: …` / `caller: …` lines. */
  transcript?: string;
  /** The call's tasks that collected a value, by task name (`{"confirm": true}`). */
  toolResults?: Record<string, unknown>;
  /** How the session ended (`agent hung up: voicemail left`, `caller hung up`…). */
  ended?: string;
}

/** One change to a call's record; `at` is when it was recorded (ISO). */
export type CallChange =
  | { kind: 'dialled'; at: string; platformCallId?: string }
  | { kind: 'dial-failed'; at: string; raw: string; error: string }
  | { kind: 'status'; at: string; update: StatusUpdate }
  /** hiwar asked the platform to hang the unanswered call up (before the request went). */
  | { kind: 'cancel'; at: string; reason: 'draining' }
  /** The platform took hiwar's request to hang the answered call up (its media never came). */
  | { kind: 'hangup'; at: string; reason: 'no-media' }
  | { kind: 'session'; at: string; session: CallSessionSummary };

/** Where records are kept: one process's memory, or the cluster's Redis. */
export interface CallRecords {
  /** Records a call just placed (before its dial request), under its id and its `reference`, if any. */
  create(call: OutboundCall): Promise<void>;
  /** Adds one change; false when no call has that id (expired, or never placed). */
  append(id: string, change: CallChange): Promise<boolean>;
  /** The call as placed and its changes, or undefined. */
  read(id: string): Promise<{ call: OutboundCall; changes: CallChange[] } | undefined>;
  /** The id of the call placed with this `reference` (a campaign's dial id), if any. */
  byReference(reference: string): Promise<string | undefined>;
  /**
   * The calls placed by the process this one replaces and not over yet, which this one takes
   * over (a `hiwar serve --workers` worker respawned by its primary; elsewhere absent).
   */
  orphans?(): Promise<string[]>;
  /** Tells `listener` the id of each call another instance changed (a cluster only). */
  watch?(listener: (id: string) => void): Promise<void>;
  /** Frees what the records hold of their own (a subscriber connection); the store stays. */
  close?(): Promise<void>;
}

/** Ranks of statuses: a call never goes back. */
const RANK: Record<OutboundStatus, number> = { queued: 0, ringing: 1, answered: 2, busy: 3, 'no-answer': 3, failed: 3, canceled: 3, completed: 3 };

/** The record now: the call as placed with its changes applied in order (late or repeated callbacks change nothing). */
export function fold(placed: OutboundCall, changes: CallChange[]): OutboundCall {
  const call: OutboundCall = structuredClone(placed);
  for (const ch of changes) {
    if (ch.kind === 'dialled') {
      // The dial's answer names the call; a callback that came first may have named its leg.
      if (!ch.platformCallId) continue;
      if (call.platformCallId && call.platformCallId !== ch.platformCallId) call.platformLegId ??= call.platformCallId;
      call.platformCallId = ch.platformCallId;
    } else if (ch.kind === 'dial-failed') {
      status(call, { status: 'failed', raw: ch.raw }, ch.at);
      call.error = ch.error;
    } else if (ch.kind === 'status') status(call, ch.update, ch.at);
    else if (ch.kind === 'cancel') call.cancelRequested ??= ch.reason;
    else if (ch.kind === 'hangup') call.hangUpRequested ??= ch.reason;
    else call.session = { ...call.session, ...ch.session };
  }
  return call;
}

function status(call: OutboundCall, u: StatusUpdate, at: string): void {
  // Plivo names the answered leg (CallUUID) apart from the request (request_uuid): both are kept.
  if (u.platformCallId && !call.platformCallId) call.platformCallId = u.platformCallId;
  else if (u.platformCallId && u.platformCallId !== call.platformCallId) call.platformLegId ??= u.platformCallId;
  if (call.outcome || RANK[u.status] < RANK[call.status]) return;
  call.status = u.status;
  call.rawStatus = u.raw;
  if (u.status === 'answered') call.answeredAt ??= at;
  if (FINAL_OUTCOMES.has(u.status)) {
    call.outcome = u.status as OutboundCall['outcome'];
    call.endedAt = at;
    if (u.durationS !== undefined) call.durationS = u.durationS;
    else if (u.status === 'completed' && call.answeredAt) call.durationS = Math.round((Date.parse(at) - Date.parse(call.answeredAt)) / 1000);
  }
}

/**
 * What a call report tells a campaign: who answered, what was said, what the tools returned and
 * the tasks collected, by name (a tool called twice: its last result; a task's value over a tool
 * of the same name).
 */
export function summaryOf(report: CallReport): CallSessionSummary {
  const fromTools = (report.tools ?? []).filter((t) => t.result !== undefined).map((t) => [t.name, t.result] as const);
  const fromTasks = report.tasks.filter((t) => t.result.ok).map((t) => [t.name, (t.result as { value: unknown }).value] as const);
  const toolResults = Object.fromEntries([...fromTools, ...fromTasks]);
  return {
    ...(report.amd ? { amd: { class: report.amd.class, action: report.amd.action, decisionMs: report.amd.decisionMs } } : {}),
    // What the caller heard of an agent turn cut short; a whole turn as said.
    ...(report.turns.length ? { transcript: report.turns.map((t) => (t.role === 'user' ? `caller: ${t.text}` : `agent: ${t.interrupted ? (t.heardText ?? t.text) : t.text}`)).join('\n') } : {}),
    ...(Object.keys(toolResults).length ? { toolResults } : {}),
    ended: report.ended,
  };
}

/** Defaults of the records' keeping, in one place. */
export const CALL_RECORDS_DEFAULTS = {
  /** How long a record stays readable after it was placed. */
  keepMs: 24 * 3600_000,
  /** Records one process keeps at most (memory); the oldest go first. */
  maxCalls: 10_000,
  /** Prefix of the keys in Redis (the cluster's). */
  prefix: 'hiwar',
} as const;

/** One process's records: a restarted process forgets its calls (their callbacks are then refused). */
export class MemoryCallRecords implements CallRecords {
  private readonly calls = new Map<string, { call: OutboundCall; changes: CallChange[]; at: number }>();
  private readonly refs = new Map<string, string>();

  async create(call: OutboundCall): Promise<void> {
    const now = Date.now();
    for (const [id, r] of this.calls) {
      // Insertion order is age order: stop at the first record still young enough with room left.
      if (now - r.at <= CALL_RECORDS_DEFAULTS.keepMs && this.calls.size < CALL_RECORDS_DEFAULTS.maxCalls) break;
      this.calls.delete(id);
      if (r.call.reference) this.refs.delete(r.call.reference);
    }
    this.calls.set(call.id, { call: structuredClone(call), changes: [], at: now });
    if (call.reference) this.refs.set(call.reference, call.id);
  }
  async append(id: string, change: CallChange): Promise<boolean> {
    const r = this.calls.get(id);
    if (!r) return false;
    r.changes.push(change);
    return true;
  }
  async read(id: string) {
    const r = this.calls.get(id);
    return r && { call: structuredClone(r.call), changes: structuredClone(r.changes) };
  }
  async byReference(reference: string) {
    return this.refs.get(reference);
  }
}

// Appends only to a call that exists, and keeps the list's life with the record's.
const APPEND = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))
redis.call('PUBLISH', KEYS[3], ARGV[2])
return 1
`;

/** The queued commands of `RecordsRedis.multi()` that the records use. */
export interface RecordsRedisMulti {
  /** SET key value PX ms, queued. */
  set(key: string, value: string, px: 'PX', ms: number): RecordsRedisMulti;
  /** GET key, queued. */
  get(key: string): RecordsRedisMulti;
  /** LRANGE key start stop, queued. */
  lrange(key: string, start: number, stop: number): RecordsRedisMulti;
  /** Runs the queued commands: `[error, result]` for each. */
  exec(): Promise<unknown>;
}

/**
 * The part of an ioredis client (`new Redis(url)` from the `ioredis` package) that
 * `RedisCallRecords` uses. Named here rather than imported from ioredis, an optional package:
 * the telephony entry's types then check in a project that has not installed it.
 */
export interface RecordsRedis {
  /** A transaction of queued commands. */
  multi(): RecordsRedisMulti;
  /** EVAL script numkeys key… arg…. */
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
  /** GET key. */
  get(key: string): Promise<string | null>;
  /** A second connection to the same server (a subscriber takes no other command). */
  duplicate(): RecordsRedisSubscriber;
}

/** The subscriber connection `RecordsRedis.duplicate()` gives. */
export interface RecordsRedisSubscriber {
  /** Its errors (a lost connection: ioredis reconnects). */
  on(event: 'error', listener: (err: Error) => void): unknown;
  /** A message published on a channel it subscribed to. */
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  /** SUBSCRIBE channel. */
  subscribe(channel: string): Promise<unknown>;
  /** Closes the connection. */
  disconnect(): void;
}

/**
 * A cluster's records in Redis: `<prefix>:outbound:<id>` (the call as placed), `…:<id>:changes`
 * (a list), `<prefix>:outbound-ref:<reference>` (a campaign dial's call), each kept `keepMs`;
 * every change is announced on `<prefix>:outbound-changes` so the instance waiting for the call's
 * outcome learns it at once.
 */
export class RedisCallRecords implements CallRecords {
  private sub: RecordsRedisSubscriber | undefined;
  private readonly o: { prefix: string; keepMs: number };

  constructor(
    private readonly redis: RecordsRedis,
    o: { prefix?: string; keepMs?: number } = {},
  ) {
    this.o = { prefix: o.prefix ?? CALL_RECORDS_DEFAULTS.prefix, keepMs: o.keepMs ?? CALL_RECORDS_DEFAULTS.keepMs };
  }

  private key = (id: string) => `${this.o.prefix}:outbound:${id}`;
  private get channel() {
    return `${this.o.prefix}:outbound-changes`;
  }

  async create(call: OutboundCall): Promise<void> {
    const m = this.redis.multi().set(this.key(call.id), JSON.stringify(call), 'PX', this.o.keepMs);
    if (call.reference) m.set(`${this.o.prefix}:outbound-ref:${call.reference}`, call.id, 'PX', this.o.keepMs);
    await m.exec();
  }
  async append(id: string, change: CallChange): Promise<boolean> {
    return (await this.redis.eval(APPEND, 3, this.key(id), `${this.key(id)}:changes`, this.channel, JSON.stringify(change), id)) === 1;
  }
  async read(id: string) {
    const [[, raw], [, list]] = (await this.redis.multi().get(this.key(id)).lrange(`${this.key(id)}:changes`, 0, -1).exec()) as [[unknown, string | null], [unknown, string[]]];
    return raw ? { call: JSON.parse(raw) as OutboundCall, changes: list.map((c) => JSON.parse(c) as CallChange) } : undefined;
  }
  async byReference(reference: string) {
    return (await this.redis.get(`${this.o.prefix}:outbound-ref:${reference}`)) ?? undefined;
  }
  async watch(listener: (id: string) => void): Promise<void> {
    // A connection in subscriber mode takes no other command: its own.
    this.sub ??= this.redis.duplicate();
    this.sub.on('error', () => {});
    this.sub.on('message', (_channel: string, id: string) => listener(id));
    await this.sub.subscribe(this.channel);
  }
  /** Closes the subscriber connection; the connection given stays open (it is the caller's). */
  async close(): Promise<void> {
    this.sub?.disconnect();
  }
}
