/**
 * jambonz `listen` verb with bidirectional streaming (WebSocket subprotocol `audio.jambonz.org`).
 * jambonz opens with one TEXT frame of call attributes (callSid, from, to, direction, …) plus
 * `sampleRate`, `mixType` and the verb's `metadata` merged in at the top level (the
 * feature-server's listen task), and `customerData` when the app tagged the call; caller audio follows as BINARY L16 at that
 * rate. With `passDtmf: true` keys arrive as `{"event":"dtmf","dtmf":"5","duration":…}`. With
 * `bidirectionalAudio: {enabled: true, streaming: true, sampleRate}` agent audio goes back as
 * BINARY L16; `{"type":"killAudio"}` stops playout (barge-in), `{"type":"mark","data":{"name"}}`
 * is reported back as a `mark` event with `event: "playout"` once played, or `"cleared"` when a
 * killAudio dropped it (jambonz's mod_audio_fork), `{"type":"disconnect"}` ends the
 * listen. What happens next (hang up, dial a transfer target) is the listen's `actionHook`
 * answer: `POST /telephony/jambonz/after/<token>`, answered by this provider — the jambonz "redirect".
 *
 * `POST /telephony/jambonz` answers jambonz's call webhook with a `listen` verb pointing back
 * here, with a per-call token in its URL.
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../../src/server/tokens.ts';
import { dtmfDigit, json, parseJson, SUMMARY_HEADER, summaryHeaderValue, type AfterStream, type Inbound, type MediaFormat, type ProviderConnection, type TelephonyProvider, type WebhookContext, type WireMessage } from './provider.ts';

export const JAMBONZ_SUBPROTOCOL = 'audio.jambonz.org';
const RATES = [8000, 16000, 24000, 32000, 48000, 64000];
/**
 * The call's attributes in the first frame (the feature-server's CallInfo.toJSON(), with
 * `sampleRate` and `mixType`); every other string or number is the verb's `metadata`, merged in
 * at the top level, and becomes a custom parameter.
 */
const ATTRIBUTES = new Set([
  'callSid', 'from', 'to', 'direction', 'sampleRate', 'mixType', 'callId', 'sbcCallid', 'sipStatus', 'sipReason', 'sipReasonHeader', 'callStatus',
  'callerId', 'callerName', 'accountSid', 'applicationSid', 'parentCallSid', 'traceId', 'originatingSipIp', 'originatingSipTrunkName', 'callTerminationBy',
  'duration', 'localSipAddress', 'publicIp', 'fsSipAddress', 'fsPublicIp', 'apiBaseUrl',
]);
/**
 * Milliseconds of agent audio per BINARY message. jambonz takes any size in streaming mode.
 * @default 20
 */
export const JAMBONZ_FRAME_MS = 20;
/**
 * How mod_audio_fork plays streamed audio (`lws_glue.cpp`, `processIncomingBinary`): what comes
 * in waits in a pre-buffer until it holds 4 × 320 × f samples before the first playout, then
 * 2 × 320 × f (f = the stream's rate over the call's, at least 1): at most 160 ms, then 80 ms, of
 * a call at 8 kHz or more. What is short of that waits for the next audio, so a reply's end is
 * followed by silence enough to complete a batch (`MediaFormat.playoutBatch`).
 */
export const JAMBONZ_PLAYOUT_BATCH = { firstMs: 160, ms: 80 } as const;

/** The listen verb that connects a call to this server: what the call webhook answers. */
export function listenVerb(streamUrl: string, actionUrl: string, sampleRate = 8000): Record<string, unknown> {
  return {
    verb: 'listen',
    url: streamUrl,
    actionHook: actionUrl,
    sampleRate,
    mixType: 'mono',
    passDtmf: true,
    bidirectionalAudio: { enabled: true, streaming: true, sampleRate },
  };
}

/** What the listen's actionHook answers once the agent let the stream go. */
export function afterListen(next: AfterStream | undefined): Record<string, unknown>[] {
  if (next?.action === 'transfer') {
    const sip = /^sips?:/i.test(next.target);
    // jambonz places every dial as a SIP INVITE: the summary goes as a header either way.
    const headers = next.summary ? { headers: { [SUMMARY_HEADER]: summaryHeaderValue(next.summary) } } : {};
    return [{ verb: 'dial', target: [sip ? { type: 'sip', sipUri: next.target } : { type: 'phone', number: next.target }], ...headers }];
  }
  return [{ verb: 'hangup' }];
}

/** Options of the jambonz provider (`jambonzProvider`, `telephonyRoutes({ jambonz })`). */
export const JAMBONZ_DEFAULTS = {
  /**
   * The listen verbs hiwar answers the call webhook with ask jambonz for playout marks. false:
   * their url carries `marks=0`, for a jambonz whose mod_audio_fork reports none; playout is then
   * counted on hiwar's send clock. `hiwar serve` (and `call`, `campaign run`) take it from
   * `JAMBONZ_MARKS=0`; a server you compose passes it.
   */
  marks: true,
};

/** The jambonz provider's options, each defaulting to `JAMBONZ_DEFAULTS`'. */
export type JambonzOptions = Partial<typeof JAMBONZ_DEFAULTS>;

/** Set to `0` in the environment of the `hiwar` commands: their jambonz provider has `marks: false`. */
export const JAMBONZ_MARKS_ENV = 'JAMBONZ_MARKS';

/** The jambonz options the `hiwar` commands take from the environment (`JAMBONZ_MARKS=0`). */
export function jambonzOptionsFromEnv(env: Record<string, string | undefined> = process.env): JambonzOptions {
  return env[JAMBONZ_MARKS_ENV] === '0' ? { marks: false } : {};
}

/** The warning's advice when jambonz reports no marks: a mod_audio_fork from before them. */
export const JAMBONZ_WITHOUT_MARKS =
  `jambonz reports marks only from a mod_audio_fork that has them; with an older one set ${JAMBONZ_MARKS_ENV}=0 for the listen verbs hiwar answers, or add marks=0 to the url of a listen verb of your own, and hiwar paces on its own clock`;

class JambonzConnection implements ProviderConnection {
  private started = false;
  /** Absent with `marks=0` (a mod_audio_fork that reports none): playout is then counted on the send clock. */
  readonly mark?: (name: string) => WireMessage;
  readonly withoutMarks = JAMBONZ_WITHOUT_MARKS;

  constructor(url: URL) {
    if (url.searchParams.get('marks') !== '0') this.mark = (name) => json({ type: 'mark', data: { name } });
  }

  parse(msg: WireMessage): Inbound[] {
    if ('binary' in msg) return this.started ? [{ type: 'audio', payload: msg.binary }] : [{ type: 'invalid', reason: 'audio before the call attributes' }];
    const m = parseJson(msg);
    if (!m) return [{ type: 'invalid', reason: 'jambonz text frames are JSON' }];
    if (!this.started) return [this.start(m)];
    if (m.event === 'dtmf') {
      const digit = dtmfDigit(m.dtmf);
      // jambonz reports the duration in 8 kHz timestamp units.
      const duration = Number(m.duration);
      return digit ? [{ type: 'dtmf', digit, durationMs: duration > 0 ? Math.round(duration / 8) : undefined }] : [{ type: 'invalid', reason: 'dtmf without a valid digit' }];
    }
    const type = m.type ?? m.event;
    if (type === 'mark') {
      const name = m.data?.name ?? m.name;
      if (typeof name !== 'string') return [{ type: 'invalid', reason: 'mark without a name' }];
      // mod_audio_fork reports each mark once: `event: "playout"` when the audio before it has
      // played, `"cleared"` when a killAudio dropped it (then it was not heard).
      return [m.data?.event === 'cleared' ? { type: 'mark', name, cleared: true } : { type: 'mark', name }];
    }
    if (type === 'playDone' || type === 'clearMarks' || type === 'error') return type === 'error' ? [{ type: 'invalid', reason: `jambonz error: ${JSON.stringify(m.data ?? m).slice(0, 120)}` }] : [];
    return [{ type: 'invalid', reason: `unknown jambonz message ${JSON.stringify(type)}` }];
  }

  private start(m: Record<string, any>): Inbound {
    const callId = m.callSid ?? m.call_sid;
    if (typeof callId !== 'string' || !callId) return { type: 'invalid', reason: 'jambonz call attributes without callSid' };
    const sampleRate = Number(m.sampleRate ?? 8000);
    if (!RATES.includes(sampleRate)) return { type: 'invalid', reason: `jambonz sample rate ${JSON.stringify(m.sampleRate)} is not supported` };
    if (m.mixType && m.mixType !== 'mono') return { type: 'invalid', reason: `jambonz mixType ${m.mixType}: only mono is carried` };
    this.started = true;
    // What the app tagged the call with (the `tag` verb: `customerData`), then the verb's metadata over it.
    const parameters: Record<string, string> = {};
    const scalars = (o: unknown, skip?: Set<string>) => {
      if (!o || typeof o !== 'object' || Array.isArray(o)) return;
      for (const [k, v] of Object.entries(o)) if (!skip?.has(k) && (typeof v === 'string' || typeof v === 'number')) parameters[k] = String(v);
    };
    scalars(m.customerData);
    scalars(m, ATTRIBUTES);
    const format: MediaFormat = { codec: 'l16', sampleRate, frameMs: JAMBONZ_FRAME_MS, playoutBatch: JAMBONZ_PLAYOUT_BATCH };
    return {
      type: 'start',
      call: {
        callId,
        from: typeof m.from === 'string' ? m.from : undefined,
        to: typeof m.to === 'string' ? m.to : undefined,
        direction: m.direction === 'outbound' ? 'outbound' : m.direction === 'inbound' ? 'inbound' : undefined,
        parameters,
      },
      input: format,
      output: format,
    };
  }

  encodeAudio(payload: Uint8Array): WireMessage {
    return { binary: payload };
  }

  clear(): WireMessage {
    return json({ type: 'killAudio' });
  }

  /** Ends the listen; the actionHook answer says what the call does next. */
  hangup(): WireMessage[] {
    return [json({ type: 'disconnect' })];
  }
}

/** How old a signed webhook may be (jambonz's own SDKs allow five minutes). */
export const JAMBONZ_SIGNATURE_TOLERANCE_S = 300;

/**
 * jambonz webhook signing: `Jambonz-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>" with the application's webhook secret>`.
 */
export function verifyJambonzSignature(header: string | string[] | undefined, rawBody: Buffer, secret: string, nowS = Date.now() / 1000): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return false;
  let t = '';
  const sigs: string[] = [];
  for (const part of value.split(',')) {
    const [k, v] = part.trim().split('=');
    if (k === 't' && v) t = v;
    else if (k === 'v1' && v) sigs.push(v);
  }
  if (!/^\d+$/.test(t) || Math.abs(nowS - Number(t)) > JAMBONZ_SIGNATURE_TOLERANCE_S) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return sigs.some((s) => safeEqual(s, expected));
}

/** The jambonz provider with `opts` (`JAMBONZ_DEFAULTS`): the webhook's listen verb and the media connection. */
export function jambonzProvider(opts: JambonzOptions = {}): TelephonyProvider {
  const o = { ...JAMBONZ_DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  if (typeof o.marks !== 'boolean') throw new TypeError(`jambonz: \`marks\` must be true or false, got ${JSON.stringify(o.marks)}`);
  return { ...jambonzBase, answer: (route, ctx) => answerWebhook(route, ctx, o.marks) };
}

/** The call webhook: a listen verb back to this server; the listen's actionHook: what the call does next. */
function answerWebhook(route: string, ctx: WebhookContext, marks: boolean) {
  const callId = ctx.params.callSid ?? ctx.params.call_sid ?? '';
  if (!callId) return { status: 400, contentType: 'application/json', body: JSON.stringify({ error: 'callSid is required' }) };
  const stream = () => ctx.streamUrl(callId) + (marks ? '' : '?marks=0');
  const verbs = route === 'after' ? afterListen(ctx.afterStream(callId)) : [listenVerb(stream(), ctx.routeUrl('after', callId))];
  return { contentType: 'application/json', body: JSON.stringify(verbs) };
}

const jambonzBase: Omit<TelephonyProvider, 'answer'> = {
  name: 'jambonz',
  subprotocol: JAMBONZ_SUBPROTOCOL,
  secretEnv: 'JAMBONZ_WEBHOOK_SECRET',
  // Also pointed straight at a listen URL by a jambonz application of your own.
  staticMediaToken: true,
  transfersAfterStream: true,
  open: (ctx) => new JambonzConnection(ctx.url),
  verifySignature: (ctx, secret) => verifyJambonzSignature(ctx.req.headers['jambonz-signature'], ctx.rawBody, secret),
};

/** jambonz with `JAMBONZ_DEFAULTS` (marks asked for). */
export const jambonz: TelephonyProvider = jambonzProvider();
