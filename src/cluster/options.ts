/**
 * Cluster mode's settings. `REDIS_URL` turns it on; everything else has a default here or comes
 * from the environment / `hiwar serve` flags (see docs/scaling.md).
 */
export interface ClusterOptions {
  /** The Redis every instance shares, e.g. `redis://redis.internal:6379`. */
  redisUrl: string;
  /**
   * Concurrent sessions (sockets) the service key allows, across the whole cluster. Each call
   * holds `sessionsPerCall` of them. From `--key-sessions` or `HIWAR_KEY_SESSIONS`.
   */
  keySessions: number;
  /**
   * Sessions one call may hold at once: its /listen socket, its TTS socket, and one more for a
   * moment: an HTTP synthesis (a reply taken over by HTTP while the silent socket is still
   * closing, or a diacritization) or a /listen socket being replaced on reconnect. Fixed lines
   * (the out-of-service line) are rendered once per process, not per call (docs/scaling.md).
   * @default 3
   */
  sessionsPerCall?: number;
  /**
   * How long a slot stays taken without a heartbeat: a dead instance's slots come back after this.
   * @default 15_000
   */
  leaseMs?: number;
  /**
   * How often leases are renewed and the instance's record republished (under a third of the lease).
   * @default 4_000
   */
  heartbeatMs?: number;
  /**
   * Callers that may wait for a slot on one instance; further ones hear the busy line at once.
   * 0 = never wait. From `--queue-size` or `HIWAR_QUEUE_SIZE`.
   * @default 10
   */
  queueSize?: number;
  /**
   * Longest a caller waits for a slot before hearing the busy line. From `--queue-wait-ms` or
   * `HIWAR_QUEUE_WAIT_MS`.
   * @default 20_000
   */
  queueWaitMs?: number;
  /**
   * How often waiting callers retry a slot (slots freed on other instances are seen this late at
   * most; slots freed here are retried at once).
   * @default 250
   */
  pollMs?: number;
  /**
   * How long after a call ended its slots are given back. The service frees a session when it
   * sees the socket close, a moment after the call has closed it; a slot handed on at once could
   * send the next call's socket into a 429.
   * @default 1_000
   */
  releaseDelayMs?: number;
  /**
   * Event-loop delay (p99 over the last heartbeat) above which `/readyz` says not ready.
   * @default 250
   */
  maxLoopDelayMs?: number;
  /**
   * What a caller hears when no line is free (rendered once at start-up in the agent's voice).
   * @default CLUSTER_DEFAULTS.busyLine
   */
  busyLine?: string;
  /**
   * What a caller who has to wait for a line hears as the wait starts, and again every
   * `waitLineEveryMs` while it lasts (rendered at start-up with the busy line); cut off when a
   * line frees. `false` (or `HIWAR_WAIT_LINE=off`): silence. From `HIWAR_WAIT_LINE`.
   * @default CLUSTER_DEFAULTS.waitLine
   */
  waitLine?: string | false;
  /**
   * How often the wait line starts again while a caller waits, in ms from the start of the last
   * one (never before it has ended); 0: said once. From `HIWAR_WAIT_LINE_EVERY_MS`.
   * @default 15_000
   */
  waitLineEveryMs?: number;
  /** Prefix of every Redis key hiwar writes. @default 'hiwar' */
  prefix?: string;
}

export const CLUSTER_DEFAULTS = {
  sessionsPerCall: 3,
  leaseMs: 15_000,
  heartbeatMs: 4_000,
  queueSize: 10,
  queueWaitMs: 20_000,
  pollMs: 250,
  releaseDelayMs: 1_000,
  maxLoopDelayMs: 250,
  busyLine: 'نعتذر منك، جميع الخطوط مشغولة حالياً. يرجى معاودة الاتصال بعد قليل. شكراً لك.',
  waitLine: 'شكراً لاتصالك. جميع الخطوط مشغولة حالياً، يرجى البقاء على الخط وسنرد عليك بعد قليل.' as string | false,
  // Within the default 20 s wait a caller hears it twice, with about 8 s of silence between: a
  // silence much longer is taken for a dead line.
  waitLineEveryMs: 15_000,
  prefix: 'hiwar',
} as const;

export type ResolvedClusterOptions = Required<ClusterOptions>;

/** Fills the defaults and checks the numbers make sense together; throws with a clear message. */
export function resolveClusterOptions(o: ClusterOptions): ResolvedClusterOptions {
  const r = { ...CLUSTER_DEFAULTS, ...definedOnly(o) } as ResolvedClusterOptions;
  const whole = (name: keyof ClusterOptions, min: number) => {
    const v = r[name] as number;
    if (!Number.isInteger(v) || v < min) throw new Error(`cluster option ${name} must be a whole number of at least ${min}, got ${v}`);
  };
  whole('keySessions', 1);
  whole('sessionsPerCall', 1);
  whole('leaseMs', 100);
  whole('heartbeatMs', 10);
  whole('queueSize', 0);
  whole('queueWaitMs', 0);
  whole('pollMs', 5);
  whole('releaseDelayMs', 0);
  whole('waitLineEveryMs', 0);
  if (r.keySessions < r.sessionsPerCall) throw new Error(`the key's ${r.keySessions} sessions cannot hold one call (${r.sessionsPerCall} sessions each)`);
  checkLeaseTiming(r.leaseMs, r.heartbeatMs);
  return r;
}

/**
 * A lease must survive one missed heartbeat and a slow Redis round trip: the heartbeat runs at
 * most every third of the lease.
 */
export function checkLeaseTiming(leaseMs: number, heartbeatMs: number): void {
  if (heartbeatMs * 3 > leaseMs) throw new Error(`the heartbeat (${heartbeatMs} ms) must be at most a third of the lease (${leaseMs} ms)`);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
