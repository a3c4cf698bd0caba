/** How a drain treats calls a webhook answer, or a call placed here, promised media for. */
export const DRAIN_DEFAULTS = {
  /**
   * A drain waits this long after a webhook answer for its media connection (platforms connect
   * within a second or two of the answer); one that comes later, while the token is valid and
   * the process is still up, is still let in. A webhook whose media never comes (the caller hung
   * up while it rang, an application that never reached its stream) then holds a shutdown for a
   * few seconds, not for the token's five minutes. A call this server placed that still rings is
   * waited for up to its ring timeout plus this (`CallHost.promise`'s `waitMs`).
   */
  promisedMediaWaitMs: 5_000,
  /**
   * A drain out of time ends each remaining call with its closing line (`endWithLine`), and waits
   * this long at most for it to be heard before ending the call anyway: a line held up (a
   * platform that never reports it played) does not hold the shutdown.
   */
  closingLineMaxMs: 10_000,
  /**
   * With a shared ledger (`CallManagerOptions.ledger`), how often a drain asks it whether the
   * media of a call it waits for connected to another instance, to stop waiting for it then.
   */
  mediaCheckMs: 250,
} as const;

/** What a drain waits for, and the log line that says it (`CallManager.waitingFor`, `drain`). */
export interface DrainWaiting {
  /** Calls running (their sessions made or being made). */
  calls: number;
  /** Connections holding a place whose call has not started (no platform `start` yet). */
  connecting: number;
  /** Those connections: `provider:callId` when a token names the call, else the adapter's name. */
  connections: string[];
  /** When the last of them is closed by its start timeout, if each said (`HoldOptions.until`). */
  connectingUntil?: number;
  /** Answered webhooks whose media has not connected (`provider:callId`), awaited until `mediaUntil`. */
  media: string[];
  mediaUntil?: number;
  /** Calls this server placed that still ring (`provider:callId`), awaited until `ringingUntil`. */
  ringing: string[];
  ringingUntil?: number;
}

const seconds = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

/** The drain's first log line (`drain: waiting for …`), or undefined when it waits for nothing. */
export function describeDrainWait(w: DrainWaiting, now: number): string | undefined {
  const parts: string[] = [];
  if (w.calls) parts.push(`${w.calls} running call(s)`);
  if (w.connecting) {
    const bound = w.connectingUntil !== undefined ? `, each closed by its start timeout within ${seconds(w.connectingUntil - now)}` : '';
    parts.push(`${w.connecting} connection(s) whose call has not started (${w.connections.join(', ')}; no start message yet${bound})`);
  }
  if (w.media.length) parts.push(`the media of ${w.media.length} answered call(s) not connected yet, up to ${seconds(w.mediaUntil! - now)} (${w.media.join(', ')})`);
  if (w.ringing.length) parts.push(`${w.ringing.length} placed call(s) still ringing, up to ${seconds(w.ringingUntil! - now)} (${w.ringing.join(', ')})`);
  return parts.length ? `drain: waiting for ${parts.join(', ')}` : undefined;
}

/** How many answered calls' media and placed calls ringing a drain waits for, and until when (epoch ms). */
export interface DrainCounts {
  media: number;
  mediaUntil?: number;
  ringing: number;
  ringingUntil?: number;
}

/** The counts of what a drain waits for. */
export function countsOf(w: DrainWaiting): DrainCounts {
  return { media: w.media.length, ...(w.mediaUntil !== undefined ? { mediaUntil: w.mediaUntil } : {}), ringing: w.ringing.length, ...(w.ringingUntil !== undefined ? { ringingUntil: w.ringingUntil } : {}) };
}

/** Several processes' counts as one (a `--workers` machine): summed, each bound the latest. */
export function sumCounts(list: DrainCounts[]): DrainCounts {
  const latest = (xs: (number | undefined)[]) => xs.reduce<number | undefined>((a, x) => (x === undefined ? a : Math.max(a ?? x, x)), undefined);
  const mediaUntil = latest(list.map((c) => c.mediaUntil));
  const ringingUntil = latest(list.map((c) => c.ringingUntil));
  return { media: list.reduce((n, c) => n + c.media, 0), ...(mediaUntil !== undefined ? { mediaUntil } : {}), ringing: list.reduce((n, c) => n + c.ringing, 0), ...(ringingUntil !== undefined ? { ringingUntil } : {}) };
}

/**
 * What a stopping `hiwar serve` says it waits for beyond its running calls, for its
 * `SIGTERM: draining (…)` line: `, the media of 1 answered call(s) awaited up to 4.9 s, 2 placed
 * call(s) ringing, awaited up to 34.8 s`; empty when nothing.
 */
export function describeAwaited(c: DrainCounts, now: number): string {
  return (
    (c.media ? `, the media of ${c.media} answered call(s) awaited up to ${seconds(c.mediaUntil! - now)}` : '') +
    (c.ringing ? `, ${c.ringing} placed call(s) ringing, awaited up to ${seconds(c.ringingUntil! - now)}` : '')
  );
}
