import { randomUUID } from 'node:crypto';
import { CallRefused, type CallHost, type CallOutcome } from '../../src/server/types.ts';
import type { Logger } from '../../src/session/logger.ts';
import type { PlaybackUpdate } from '../../src/transport/types.ts';
import { MediaStreamTransport, type MediaSink, type MediaStreamOptions, type PlatformHooks } from './media-stream.ts';
import type { Inbound, ProviderConnection, WireMessage } from './provider.ts';

/** Options of one media connection, whatever carries it (WebSocket, TCP). */
export interface MediaConnectionOptions {
  provider: string;
  conn: ProviderConnection;
  sink: MediaSink;
  host: CallHost;
  media?: MediaStreamOptions;
  hooks?: PlatformHooks;
  logger?: Logger;
  /**
   * Claims of the per-call token: the platform's `start` must carry their call id (else the
   * connection is closed before any call), and their parameters are merged into the call's metadata.
   */
  claims?: { callId?: string; parameters?: Record<string, string>; direction?: 'outbound' };
  /** Called once the call is over, with its transport (for what the agent decided). */
  onEnded?(transport: MediaStreamTransport | undefined, outcome: CallOutcome | undefined): void;
  /** The call's place held on the server until `start` (pending connections count against the call limit). */
  hold?: { release(): void };
  /** Items kept while waiting for the platform's `start`; see `MEDIA_CONNECTION_DEFAULTS`. */
  maxEarlyItems?: number;
  /** Bytes of caller audio kept while waiting for `start`; see `MEDIA_CONNECTION_DEFAULTS`. */
  maxEarlyAudioBytes?: number;
  /** See `MEDIA_CONNECTION_DEFAULTS`. */
  startTimeoutMs?: number;
  idleTimeoutMs?: number;
}

/** Unacknowledged agent audio, with no mark echoed yet, before the warning (wall clock). */
const MARKS_UNANSWERED_MS = 5000;

/** Limits of one media connection. */
export const MEDIA_CONNECTION_DEFAULTS = {
  /** No `start` within this, and the connection is closed (its held place and buffer freed). */
  startTimeoutMs: 15_000,
  /** Nothing at all from the platform for this long (media streams send even silence): a half-open connection, closed. */
  idleTimeoutMs: 30_000,
  /**
   * Before `start`, messages are kept to be replayed after it, but only the latest few: at most
   * this many items and this many bytes of audio (about 250 ms of 16 kHz L16, 2 s of G.711), the
   * oldest dropped first. A connection that never starts holds no more than that.
   */
  maxEarlyItems: 32,
  maxEarlyAudioBytes: 8192,
};

/**
 * Drives one media connection: parses every message through the provider, builds the transport
 * at the platform's `start` (items before it are kept and replayed), runs the call on the host,
 * and ends the call when the connection goes. Never throws into the socket's event handlers: a
 * bad message is counted, a failing call is closed, other calls never notice.
 */
export class MediaConnection {
  private transport: MediaStreamTransport | undefined;
  private early: Inbound[] = [];
  private earlyAudioBytes = 0;
  private finished = false;
  private resolveDone!: (o: CallOutcome | undefined) => void;
  /** Resolves with the call's outcome (undefined when no call started) once it is over. */
  readonly done = new Promise<CallOutcome | undefined>((r) => (this.resolveDone = r));
  invalid = 0;
  /** Why the first unreadable message before `start` was refused (said once, and with the start timeout). */
  private firstUnreadable: string | undefined;
  private lastHeard = Date.now();
  private readonly watchdog: NodeJS.Timeout;
  /** Mark echoes heard, and when agent audio first went out unacknowledged (see `checkMarks`). */
  private marksHeard = 0;
  private unackedSince: number | undefined;
  private marksWarned = false;
  private playback: PlaybackUpdate | undefined;

  constructor(private readonly o: MediaConnectionOptions) {
    const startBy = Date.now() + (o.startTimeoutMs ?? MEDIA_CONNECTION_DEFAULTS.startTimeoutMs);
    const idle = o.idleTimeoutMs ?? MEDIA_CONNECTION_DEFAULTS.idleTimeoutMs;
    this.watchdog = setInterval(() => {
      const now = Date.now();
      this.checkMarks(now);
      const why = !this.transport && now > startBy ? 'no start message' : now - this.lastHeard > idle ? 'platform silent' : undefined;
      if (!why) return;
      // What the platform sent instead of its start is what to fix (a gateway speaking another protocol).
      const unread = why === 'no start message' && this.firstUnreadable ? ` (${this.invalid} unreadable message(s), the first: ${this.firstUnreadable})` : '';
      this.o.logger?.warn({ provider: o.provider }, `media connection closed: ${why}${unread}`);
      this.o.sink.close(why);
      this.closed(why);
    }, Math.min(1000, idle / 2));
    this.watchdog.unref();
    for (const item of o.conn.opened?.() ?? []) this.apply(item);
  }

  /** Handles one message from the platform. */
  receive(msg: WireMessage): void {
    this.lastHeard = Date.now();
    let items: Inbound[];
    try {
      items = this.o.conn.parse(msg);
    } catch (err) {
      items = [{ type: 'invalid', reason: (err as Error).message }];
    }
    for (const item of items) this.apply(item);
  }

  /** Handles one text message given as its bytes (WebSocket): read in place where the provider can. */
  receiveText(bytes: Buffer): void {
    let items: Inbound[] | undefined;
    try {
      items = this.o.conn.readTextBytes?.(bytes);
    } catch (err) {
      items = [{ type: 'invalid', reason: (err as Error).message }];
    }
    if (!items) return this.receive({ text: bytes.toString('utf8') });
    this.lastHeard = Date.now();
    for (let i = 0; i < items.length; i++) this.apply(items[i]!);
  }

  private apply(item: Inbound): void {
    if (this.finished) return;
    if (item.type === 'mark') this.marksHeard++;
    if (item.type === 'invalid') {
      this.invalid++;
      this.o.logger?.debug({ provider: this.o.provider, reason: item.reason }, 'unreadable media message');
    }
    if (this.transport) return this.transport.handle(item);
    if (item.type === 'start') return this.start(item);
    if (item.type === 'stop') return this.closed('stopped before start');
    if (item.type === 'invalid') {
      if (this.firstUnreadable === undefined) {
        this.firstUnreadable = item.reason;
        this.o.logger?.warn({ provider: this.o.provider, reason: item.reason }, `unreadable media message before the platform's start (is this ${this.o.provider}'s media stream?)`);
      }
      return;
    }
    this.keepEarly(item);
  }

  /** Keeps an item for after `start`: the latest ones only, within count and audio-byte limits. */
  private keepEarly(item: Inbound): void {
    const maxItems = this.o.maxEarlyItems ?? MEDIA_CONNECTION_DEFAULTS.maxEarlyItems;
    const maxBytes = this.o.maxEarlyAudioBytes ?? MEDIA_CONNECTION_DEFAULTS.maxEarlyAudioBytes;
    const bytes = item.type === 'audio' ? item.payload.byteLength : 0;
    if (bytes > maxBytes) return; // one message larger than the whole allowance: nothing of it is kept
    this.early.push(item);
    this.earlyAudioBytes += bytes;
    while (this.early.length > maxItems || this.earlyAudioBytes > maxBytes) {
      const dropped = this.early.shift()!;
      if (dropped.type === 'audio') this.earlyAudioBytes -= dropped.payload.byteLength;
    }
  }

  private start(item: Extract<Inbound, { type: 'start' }>): void {
    const claims = this.o.claims;
    // A per-call token grants the call it was minted for: the platform's start must name the same
    // call (or stream), and the call id in logs and metadata is the token's, not the peer's claim.
    // A call this server placed is known by hiwar's id; the platform's own id came later (kept as a parameter).
    const outbound = claims?.direction === 'outbound';
    if (claims?.callId && !outbound && item.call.callId !== claims.callId && item.call.streamId !== claims.callId) {
      this.o.logger?.warn({ provider: this.o.provider, callId: claims.callId, claimed: item.call.callId || '(none)' }, 'media start refused: not the call the token was issued for');
      this.o.sink.close('call id does not match the token');
      this.closed('call id does not match the token');
      return;
    }
    // A placed call's variables are the ones it was dialled with: the token's win over the stream's.
    const parameters: Record<string, string> = outbound
      ? { ...item.call.parameters, ...claims?.parameters, ...(item.call.callId ? { platformCallId: item.call.callId } : {}) }
      : { ...claims?.parameters, ...item.call.parameters };
    const call = {
      ...item.call,
      // A stream that names no call (an open route, no token) still gets an id of its own: recordings and metrics key on it.
      callId: claims?.callId || item.call.callId || `${this.o.provider}-${randomUUID()}`,
      parameters,
      // Telnyx's and Plivo's starts name no numbers: the webhook's From and To, carried by the
      // token or the stream's headers, are the call's (agentFor, the review list, analytics read them).
      from: item.call.from ?? parameters.From,
      to: item.call.to ?? parameters.To,
      ...(outbound ? { direction: 'outbound' as const } : {}),
    };
    const t = new MediaStreamTransport(this.o.provider, { ...item, call }, this.o.conn, this.o.sink, this.o.media, this.o.hooks);
    this.transport = t;
    t.output.playback$.subscribe((u) => (this.playback = u));
    for (const e of this.early.splice(0)) t.handle(e);
    this.earlyAudioBytes = 0;
    // The held place becomes the call itself (runCall counts it from here).
    this.o.hold?.release();
    void this.o.host.runCall(t).then(
      (outcome) => this.finish(outcome),
      (err) => {
        if (err instanceof CallRefused) this.o.logger?.warn({ provider: this.o.provider, reason: err.reason }, 'call refused');
        else this.o.logger?.error({ provider: this.o.provider, err: (err as Error).message }, 'call failed');
        this.finish(err instanceof CallRefused ? 'refused' : 'failed');
      },
    );
  }

  /**
   * A platform (most often a gateway of the generic PCM protocol) that was sent marks and echoes
   * none of them: the agent's audio waits for the echoes and its turn never ends, so the caller
   * seems never to be heard. Said once per call, after five seconds, with the fix.
   */
  private checkMarks(now: number): void {
    if (this.marksWarned || this.marksHeard || !this.transport || !this.o.conn.mark) return;
    const p = this.playback;
    if (!p || p.sent <= p.played) return void (this.unackedSince = undefined);
    this.unackedSince ??= now;
    if (now - this.unackedSince < MARKS_UNANSWERED_MS) return;
    this.marksWarned = true;
    const advice = this.o.conn.withoutMarks ?? 'a PCM gateway echoes each mark once the audio before it has played, or connects with marks=0';
    this.o.logger?.warn(
      { provider: this.o.provider, call: this.transport.call.callId },
      `the platform echoes none of the playout marks: the agent waits for them and never finishes speaking (${advice})`,
    );
  }

  private finish(outcome: CallOutcome): void {
    this.finished = true;
    clearInterval(this.watchdog);
    const t = this.transport;
    // A call given up on here (refused, its session failed) with the caller still on it, never
    // hung up by the session: the hangup hook ends it where the platform keeps a call up after
    // its stream (Telnyx Call Control), as it does for the agent's hang-up.
    if (t && !t.isEnded && !t.agentAction) {
      this.o.hooks?.hangup?.(t.call, outcome).catch((err: Error) => this.o.logger?.warn({ provider: this.o.provider, err: err.message }, 'the hangup hook failed'));
    }
    // The session is over: the platform's stream goes too (the call hangs up or continues with
    // the markup after the stream, e.g. a transfer).
    this.o.sink.close(outcome);
    this.transport?.end('session ended');
    this.o.onEnded?.(this.transport, outcome);
    this.resolveDone(outcome);
  }

  /** The connection is gone (closed by either side, or broken). */
  closed(reason: string): void {
    if (!this.transport) clearInterval(this.watchdog);
    if (this.transport) {
      this.transport.end(reason === 'normal' ? 'caller hung up' : reason);
      return; // the session ends on the hang-up; finish() follows from runCall
    }
    if (this.finished) return;
    this.finished = true;
    this.early = [];
    this.earlyAudioBytes = 0;
    this.o.hold?.release();
    this.o.onEnded?.(undefined, undefined);
    this.resolveDone(undefined);
  }
}
