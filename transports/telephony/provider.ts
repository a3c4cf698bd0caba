/**
 * What one telephony platform adapter implements. A provider file (`twilio.ts`, `exotel.ts`…) is
 * a translator only: it parses the platform's wire messages into `Inbound` items and renders the
 * transport's intents (audio, clear, mark, hang up) as the platform's wire messages. Pacing,
 * marks bookkeeping, jitter, codecs and the session live in the one shared `MediaStreamTransport`
 * (`media-stream.ts`), so a provider file stays short and pure: no sockets, no timers.
 *
 * Lifecycle of one media connection:
 * 1. The plugin accepts the connection (WebSocket, or TCP for AudioSocket) after checking the
 *    token or signature, and calls `provider.open(ctx)`: one `ProviderConnection` per connection.
 * 2. `connection.opened()` may return items at once (a protocol whose format is known from the
 *    URL, e.g. `pcm?rate=16000`, returns its `start` here).
 * 3. Every message goes through `connection.parse(msg)`. The first `start` item makes the
 *    transport: the latest items before it (a few hundred milliseconds of audio at most:
 *    `MEDIA_CONNECTION_DEFAULTS`) are kept and replayed after it.
 * 4. Agent audio goes out through `encodeAudio`, one frame of `format.frameMs` at a time, paced
 *    by the transport; `clear()` on barge-in; `mark(name)` after audio whose playout the platform
 *    can acknowledge. A `mark` item coming back with the same name says the audio before it was
 *    played.
 *
 * Each platform's messages as the adapters read and write them, and the documentation they come
 * from: docs/protocols.md#telephony-media-streams (the documented messages themselves are test
 * fixtures: test/fixtures/platforms/).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallInfo } from '../../src/transport/types.ts';

/** Codecs on the wire. Decoding and encoding happen at the edge, in the shared transport. */
export type WireCodec = 'mulaw' | 'alaw' | 'l16';

/** The audio format of one direction of a media stream. */
export interface MediaFormat {
  codec: WireCodec;
  /** Samples per second on the wire: 8000 for G.711, 8000/16000 (or the query's) for L16. */
  sampleRate: number;
  /**
   * Milliseconds of agent audio per outbound message. Where the platform demands an exact frame
   * size (Vonage 20 ms = 640 B at 16 kHz, AudioSocket 320 B) this is it; elsewhere a size the
   * platform handles well.
   */
  frameMs: number;
  /**
   * How often paced agent audio goes out, at most: the frames that fall due within it are sent
   * together (one write, with the mark after them). Platforms that buffer what they are sent
   * (Twilio) could take a few frames at a time; those that play each frame as it arrives (AudioSocket:
   * "one frame per 20 ms") keep one. With k frames a step, the platform holds from half a frame
   * under the output's lead to k frames over it.
   * @default frameMs
   */
  sendEveryMs?: number;
  /** L16 byte order on the wire. @default 'le' */
  endian?: 'le' | 'be';
  /**
   * The platform plays agent audio only once it holds a batch of it (jambonz's mod_audio_fork:
   * up to `firstMs` before it first plays, up to `ms` after), so the last part of a reply would
   * wait for the next reply's audio. A reply's end is then followed by silence enough to complete
   * a batch, and a barge-in's clear is preceded by one (the held part is played into the buffer
   * the clear drops, not into the next reply). Absent where every frame plays as it comes.
   */
  playoutBatch?: { firstMs: number; ms: number };
}

/** One message on the wire: text (JSON or a line protocol) or binary. */
export type WireMessage = { text: string } | { binary: Uint8Array };

/** What the shared transport learns from one inbound message. */
export type Inbound =
  /** The call is known: who, and the audio format in both directions. */
  | { type: 'start'; call: Omit<CallInfo, 'provider'>; input: MediaFormat; output?: MediaFormat }
  /**
   * Caller audio in the input codec. `seq` (or else `timestampMs`) orders frames on platforms
   * that may reorder them (Telnyx); duplicates and late frames are dropped by the transport.
   */
  | { type: 'audio'; payload: Uint8Array; seq?: number; timestampMs?: number }
  | { type: 'dtmf'; digit: string; durationMs?: number }
  /**
   * The platform acknowledged a mark/checkpoint/notify sent by `mark(name)`: the audio before it
   * played, or, `cleared`, a clear dropped it (jambonz says which).
   */
  | { type: 'mark'; name: string; cleared?: boolean }
  /** The platform acknowledged a `clear()` (Plivo `clearedAudio`, Vonage `websocket:cleared`). */
  | { type: 'cleared' }
  /** Flow control from the platform (Asterisk `MEDIA_XOFF`/`MEDIA_XON`). */
  | { type: 'pause-output' }
  | { type: 'resume-output' }
  /** The stream or the call ended on the platform's side. */
  | { type: 'stop'; reason?: string }
  /** A message the provider could not read: logged and counted, the call goes on. */
  | { type: 'invalid'; reason: string };

/** Where a media connection came from: the upgrade request, its URL, and the checked token. */
export interface ConnectContext {
  url: URL;
  headers: IncomingMessage['headers'];
  /** Claims of the per-call token in the media URL, when there was one (call id, parameters). */
  claims?: { callId?: string; parameters?: Record<string, string>; direction?: 'outbound' };
}

/** One live media connection's translator. May keep state (stream id, negotiated format). */
export interface ProviderConnection {
  /** Items known as soon as the connection opens (formats fixed by the URL, for example). */
  opened?(): Inbound[];
  /** Reads one inbound message. Never throws: unreadable input becomes an `invalid` item. */
  parse(msg: WireMessage): Inbound[];
  /**
   * Reads a text message from its UTF-8 bytes, without making a string of it: for the platform's
   * media message, 50 a second per call. Undefined hands the message to `parse` as text.
   */
  readTextBytes?(bytes: Buffer): Inbound[] | undefined;
  /** One outbound frame of agent audio, already in the output codec (`frameMs` long). */
  encodeAudio(payload: Uint8Array): WireMessage;
  /** The platform's "stop playing and drop your buffer" message; none where the app just stops sending. */
  clear?(): WireMessage | undefined;
  /**
   * A playout checkpoint after the audio sent so far, acknowledged later with a `mark` item of the
   * same name. Leave out where the platform acknowledges nothing: the transport then reports
   * playout from its own send clock.
   */
  mark?(name: string): WireMessage | undefined;
  /**
   * Messages that end the call from inside the stream, sent before the transport closes the
   * connection (AudioSocket hangup frame). Platforms where closing the stream is the hang-up leave it out.
   * `reason` is the generic one for the far end (`farEndReason`), never hiwar's detail.
   */
  hangup?(reason?: string): WireMessage[];
  /** Whether the platform echoes a mark dropped by `clear()` as if played (Twilio, Telnyx). */
  readonly marksEchoedOnClear?: boolean;
  /**
   * What the operator sets when the platform echoes none of the marks (said in the server's
   * warning). @default a PCM gateway's advice (echo them, or connect with `marks=0`)
   */
  readonly withoutMarks?: string;
}

/**
 * A webhook the platform calls when a call arrives (or for status): answered with the markup
 * that connects the call's audio to the stream URL (TwiML, Plivo XML, NCCO, TeXML).
 */
export interface WebhookContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The raw body (signatures are computed on it) and its parsed form fields or JSON. */
  rawBody: Buffer;
  params: Record<string, string>;
  /** The public URL of this request as the platform called it (for URL-based signatures). */
  publicRequestUrl: string;
  /**
   * Makes the media WebSocket URL for this call, with a fresh per-call token in it (bound to
   * `callId`: the stream's `start` must carry the same id). Throws without a call id; the
   * webhook is then answered 400.
   */
  streamUrl(callId: string, parameters?: Record<string, string>): string;
  /** The URL of another route of this provider (e.g. the post-stream action), with a token. */
  routeUrl(route: string, callId: string): string;
  /** What the agent decided for a call whose stream has ended (hang up, transfer to a target). */
  afterStream(callId: string): AfterStream | undefined;
  /**
   * Spends a one-use value of a signed request (a nonce): true the first time, false for a replay.
   * Shared across a cluster when the server has Redis.
   */
  firstUse(key: string, ttlMs: number): Promise<boolean>;
}

/** What happens to a call once the agent let go of its stream. */
export type AfterStream = { action: 'hangup' } | { action: 'transfer'; target: string; summary?: string };

/** The SIP header that carries a transfer's summary, on the platforms that can set one. */
export const SUMMARY_HEADER = 'X-Hiwar-Summary';

/** A summary as a SIP header value: UTF-8 percent-encoded (headers are ASCII), at most 300 characters of text. */
export function summaryHeaderValue(summary: string): string {
  return encodeURIComponent(summary.replace(/\s+/g, ' ').trim().slice(0, 300));
}

/** The TwiML/TeXML `<Dial>` of a transfer: a SIP target carries the summary as a header; a number cannot. */
export function twimlDial(target: string, summary: string | undefined): string {
  return /^sips?:/i.test(target) ? `<Dial><Sip>${xmlEscape(sipWithSummary(target, summary))}</Sip></Dial>` : `<Dial>${xmlEscape(target)}</Dial>`;
}

/** A SIP URI with the summary as a header of the INVITE (`?X-Hiwar-Summary=…`), for `<Sip>` dials. */
export function sipWithSummary(uri: string, summary: string | undefined): string {
  if (!summary) return uri;
  return `${uri}${uri.includes('?') ? '&' : '?'}${SUMMARY_HEADER}=${summaryHeaderValue(summary)}`;
}

export interface WebhookAnswer {
  status?: number;
  contentType: string;
  body: string;
}

/** Everything a platform adapter is. Stateless: per-connection state lives in `ProviderConnection`. */
export interface TelephonyProvider {
  /** Route name: `/telephony/<name>`. */
  readonly name: string;
  /** WebSocket subprotocol the platform asks for (jambonz `audio.jambonz.org`). */
  readonly subprotocol?: string;
  /** Starts a media connection for a platform socket that was accepted. */
  open(ctx: ConnectContext): ProviderConnection;
  /**
   * Answers the platform's call webhook (`POST /telephony/<name>` and `/telephony/<name>/<route>`).
   * Leave out for platforms that are pointed straight at the media URL (FreeSWITCH, Asterisk, pcm).
   */
  answer?(route: string, ctx: WebhookContext): WebhookAnswer | Promise<WebhookAnswer>;
  /**
   * Checks the platform's request signature with the secret the user configured. Returns false
   * when the signature is missing or wrong. Only called when a secret is configured.
   */
  verifySignature?(ctx: WebhookContext, secret: string): boolean | Promise<boolean>;
  /**
   * True when the platform calls `answer('after', …)` once the stream ends, so a transfer or
   * hang-up decided by the agent is carried out by the markup returned there (no REST call). A
   * function decides per call, from the parameters its media token carries (Telnyx: TeXML calls
   * ask, Call Control calls never do).
   */
  readonly transfersAfterStream?: boolean | ((parameters: Record<string, string>) => boolean);
  /**
   * True for a call the platform keeps up once hiwar closes its media stream (the agent hung up,
   * the session ended): only a `hooks.<name>.hangup` that calls the platform's API ends it.
   * Without one, the first such call's end is warned of (Telnyx: Call Control calls).
   */
  readonly callOutlivesStream?: (parameters: Record<string, string>) => boolean;
  /** The environment variable holding the signature secret (documented in docs/telephony.md). */
  readonly secretEnv?: string;
  /** What that secret checks on a webhook, as a refusal names it. @default 'signature' */
  readonly webhookCheck?: string;
  /**
   * True for platforms pointed straight at a fixed media URL (FreeSWITCH, Asterisk, jambonz, pcm):
   * the static `HIWAR_MEDIA_TOKEN` opens their media route. Never set on a platform whose calls
   * come through a webhook: there the per-call token is the only key.
   */
  readonly staticMediaToken?: boolean;
}

/**
 * Oldest signed webhook accepted where the platform's signature carries a time (Vonage `iat`,
 * Telnyx and jambonz timestamps): a captured request replayed later is refused.
 */
export const WEBHOOK_MAX_AGE_S = 300;
/** Clock difference tolerated between the platform and this server (a time this far ahead is accepted). */
export const WEBHOOK_CLOCK_SKEW_S = 30;

/** Rendering helpers every provider uses. */
export const json = (value: unknown): WireMessage => ({ text: JSON.stringify(value) });
export const b64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
/** Decoded bytes as a plain view of the decoded Buffer: no copy per media message. */
export const fromB64 = (s: string): Uint8Array => {
  const b = Buffer.from(s, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};

/** Parses a JSON text message; undefined (and no throw) for anything that is not a JSON object. */
export function parseJson(msg: WireMessage): Record<string, any> | undefined {
  if (!('text' in msg)) return undefined;
  try {
    const v = JSON.parse(msg.text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Escapes a value for XML attributes and text (TwiML, Plivo XML). */
export const xmlEscape = (s: string): string =>
  s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** A DTMF key as the contract spells it, or undefined. */
export const dtmfDigit = (d: unknown): string | undefined => {
  const s = String(d ?? '').trim().toUpperCase();
  return /^[0-9*#A-D]$/.test(s) ? s : undefined;
};

/** A key press as the contract's item, or `invalid` with the platform's own reason. */
export const dtmfEvent = (d: unknown, reason = 'bad dtmf digit'): Inbound[] => {
  const digit = dtmfDigit(d);
  return digit ? [{ type: 'dtmf', digit }] : [{ type: 'invalid', reason }];
};

/**
 * The `media` event of the JSON media streams (Twilio, Telnyx, Plivo): only the inbound track;
 * `chunk` orders the frames, or else `timestamp` where the platform sends one instead (Telnyx).
 */
export function mediaEvent(media: Record<string, any> | undefined, orderBy: 'chunk' | 'chunk-or-timestamp' = 'chunk'): Inbound[] {
  const m = media ?? {};
  if (m.track && m.track !== 'inbound') return [];
  if (typeof m.payload !== 'string') return [{ type: 'invalid', reason: 'media without payload' }];
  const payload = fromB64(m.payload);
  // Built without spreads: this runs for every caller frame.
  const chunk = Number(m.chunk);
  if (Number.isFinite(chunk)) return [{ type: 'audio', payload, seq: chunk }];
  const ts = orderBy === 'chunk-or-timestamp' ? Number(m.timestamp) : NaN;
  return [Number.isFinite(ts) ? { type: 'audio', payload, timestampMs: ts } : { type: 'audio', payload }];
}
