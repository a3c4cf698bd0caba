import type { IncomingMessage, ServerResponse } from 'node:http';
import { CallRefused, type PluginContext, type PluginFactory, type ServerPlugin } from '../../../src/server/types.ts';
import { bearerMatches, type CallTokens } from '../../../src/server/tokens.ts';
import { parseParams, readBody, reply, TELEPHONY_ROUTE_DEFAULTS } from '../plugin.ts';
import type { TelephonyProvider, WebhookContext } from '../provider.ts';
import { plivo } from '../plivo.ts';
import { telnyx, TELNYX_APPLICATION } from '../telnyx.ts';
import { twilio } from '../twilio.ts';
import { vonage } from '../vonage.ts';
import type { SlotKeeper } from '../../../src/campaign/slots.ts';
import type { CallReport } from '../../../src/session/events.ts';
import type { CallInfo } from '../../../src/transport/types.ts';
import { OUTBOUND_DEFAULTS, OutboundCalls, PlaceCallError, type CallUrls, type OutboundCall, type PlaceCallRequest } from './calls.ts';
import { summaryOf, type CallRecords } from './records.ts';
import { plivoOutbound } from './plivo.ts';
import { telnyxOutbound } from './telnyx.ts';
import { twilioOutbound } from './twilio.ts';
import { DialError, type OutboundPlatform, type OutboundPlatformName, type StatusUpdate } from './types.ts';
import { vonageOutbound } from './vonage.ts';

/** Options of outbound calling (`outboundCalls`), each with its environment default. */
export interface OutboundOptions {
  /** The platforms' REST clients by name. Default: each platform whose credentials are in the environment (docs/outbound.md). */
  platforms?: Partial<Record<OutboundPlatformName, OutboundPlatform>>;
  /** The bearer secret of `POST /calls` and `GET /calls/:id`. @default process.env.HIWAR_CALLS_SECRET (unset: the routes are closed) */
  secret?: string;
  /** Caller ID when a request gives none. @default process.env.HIWAR_CALL_FROM */
  from?: string;
  /** Platform when a request names none and several are configured. @default process.env.HIWAR_CALL_PLATFORM */
  platform?: OutboundPlatformName;
  /** The address platforms reach this server at, for calls placed from code (no request to take it from). @default process.env.HIWAR_PUBLIC_URL */
  publicUrl?: string;
  /** @default OUTBOUND_DEFAULTS.ringTimeoutS */
  ringTimeoutS?: number;
  /** How long after the answer an answered call's media may take before the call is hung up. @default OUTBOUND_DEFAULTS.mediaWaitMs */
  mediaWaitMs?: number;
  /** Signature secrets of the callbacks by platform; default: the inbound webhooks' (TWILIO_AUTH_TOKEN…). */
  secrets?: Partial<Record<OutboundPlatformName, string>>;
  /** Told each time a call's status changes; what it throws is logged. */
  onStatus?(call: OutboundCall): void;
  /**
   * Where calls' records live. Default: this process's memory (a restarted server forgets its
   * calls). On a cluster, `RedisCallRecords`: any instance takes any call's callbacks and media.
   */
  records?: CallRecords;
  /**
   * A campaign's slots on a cluster (`SlotKeeper` on Redis): the slot of a campaign call whose
   * callbacks or session reach this instance is kept here until its outcome is known, then freed.
   */
  slots?: SlotKeeper;
}

/** Outbound calling on an agent server: its routes as a plugin factory, and the calls API for your code. */
export interface Outbound {
  /** For `createAgentServer({ plugins: [telephonyRoutes(), outbound.routes] })`. */
  readonly routes: PluginFactory;
  /** Places one call (checked first: nothing is dialled when the request is wrong). */
  placeCall(req: PlaceCallRequest): Promise<OutboundCall>;
  /** A call's record. */
  get(id: string): OutboundCall | undefined;
  /** Resolves once the call's outcome is final (`session`: and an answered call's session summary, or `sessionWaitMs`). */
  outcome(id: string, o?: { session?: boolean }): Promise<OutboundCall>;
  /** A call's record as the records hold it (placed on any instance of a cluster). */
  lookup(id: string): Promise<OutboundCall | undefined>;
  /** The call placed with this `reference` (a campaign's dial id), on any instance. */
  byReference(reference: string): Promise<OutboundCall | undefined>;
  /** Asks the call's platform how it stands (its call resource) and records what it says. */
  ask(id: string): Promise<{ call: OutboundCall; said?: StatusUpdate } | undefined>;
  /**
   * Records what an outbound call's session learnt (who answered, the transcript): give it to
   * `createAgentServer`'s `onCallEnded`. Other calls are ignored; what fails is logged.
   */
  callEnded(call: CallInfo, report: CallReport | undefined): void;
  /** Tells that an outbound call's session started here (give it the session's call): a campaign call's slot is kept while it runs. */
  callStarted(call: CallInfo): void;
  /** Stops following other instances' changes (Redis records). */
  close(): Promise<void>;
}

const BY_NAME: Record<OutboundPlatformName, TelephonyProvider> = { twilio, telnyx, plivo, vonage };
const SIGNED_TTL_MS = 24 * 3600_000;

/**
 * Outbound calls through Twilio, Telnyx, Plivo or Vonage, their media streamed back to this
 * server's telephony routes (mount `telephonyRoutes()` too). Routes: `POST /calls` and
 * `GET /calls/:id` (bearer `HIWAR_CALLS_SECRET`, closed without it, `open` or not), and the
 * platforms' callbacks under `/outbound/<platform>/…` (the call's token, plus the platform's
 * signature when its secret is set).
 */
export function outboundCalls(opts: OutboundOptions = {}): Outbound {
  let calls: OutboundCalls | undefined;
  let ctx: PluginContext | undefined;
  const publicUrl = () => (opts.publicUrl ?? process.env.HIWAR_PUBLIC_URL ?? '').replace(/\/+$/, '');

  // Tokens name the call in every URL handed to the platform: media (one use), callbacks, after-route.
  const urls = (base: string) => (id: string, platform: OutboundPlatformName, parameters: Record<string, string>): CallUrls => {
    const t = ctx!.tokens;
    const cb = t.mint(`outbound:${platform}`, id, { kind: 'after', ttlMs: SIGNED_TTL_MS });
    return {
      // Valid while the phone rings, and the usual media token's life after.
      // Telnyx places calls through Call Control, whose calls never ask TeXML's after-stream URL (no built-in transfer).
      stream: streamUrl(t, base, platform, id, platform === 'telnyx' ? { ...parameters, [TELNYX_APPLICATION]: 'call-control' } : parameters, (opts.ringTimeoutS ?? OUTBOUND_DEFAULTS.ringTimeoutS) * 1000 + t.ttlMs),
      answer: `${base}/outbound/${platform}/answer/${cb}`,
      status: `${base}/outbound/${platform}/status/${cb}`,
      after: afterUrl(t, base, platform, id),
    };
  };

  const place = (req: PlaceCallRequest, base: string) => {
    if (!calls) throw new Error('outbound calls: the server is not composed yet (give `routes` to createAgentServer first)');
    if (!base) throw new PlaceCallError('no public URL for the platform to reach this server: set `publicUrl` (HIWAR_PUBLIC_URL)');
    return calls.place(req, urls(base));
  };

  const routes: PluginFactory = (c) => {
    ctx = c;
    calls = new OutboundCalls(
      { tokens: c.tokens, logger: c.logger, agentOf: c.agentOf, host: c.host, ledger: c.ledger },
      { platforms: opts.platforms ?? platformsFromEnv(), from: opts.from ?? (process.env.HIWAR_CALL_FROM || undefined), platform: opts.platform ?? ((process.env.HIWAR_CALL_PLATFORM || undefined) as OutboundPlatformName | undefined), ringTimeoutS: opts.ringTimeoutS, mediaWaitMs: opts.mediaWaitMs, onStatus: opts.onStatus, records: opts.records, ...(opts.slots ? { slots: opts.slots } : {}) },
    );
    const baseOf = (request: IncomingMessage) => (opts.publicUrl ? publicUrl() : c.host.publicUrl(request));
    return plugin(c, calls, opts, baseOf, (req, request) => place(req, baseOf(request)));
  };

  return {
    routes,
    placeCall: async (req) => place(req, publicUrl()),
    get: (id) => calls?.get(id),
    outcome: (id, o) => (calls ? calls.outcome(id, o) : Promise.reject(new Error(`no outbound call ${id}`))),
    lookup: async (id) => calls?.lookup(id),
    byReference: async (reference) => calls?.byReference(reference),
    ask: async (id) => calls?.ask(id),
    callStarted(call) {
      if (!calls || call.direction !== 'outbound') return;
      void calls.sessionStarted(call.callId).catch((err: Error) => ctx?.logger.warn({ call: call.callId, err: err.message }, 'outbound: a campaign slot could not be kept'));
    },
    callEnded(call, report) {
      if (calls && call.direction === 'outbound') calls.sessionEnded(call.callId);
      if (!calls || call.direction !== 'outbound' || !report) return;
      void calls.noteSession(call.callId, summaryOf(report)).catch((err: Error) => ctx?.logger.warn({ call: call.callId, err: err.message }, 'outbound: the session summary could not be recorded'));
    },
    close: async () => calls?.close(),
  };
}

/** The media URL of a placed call: its token opens that call once, and marks it outbound. */
const streamUrl = (t: CallTokens, base: string, platform: OutboundPlatformName, id: string, parameters: Record<string, string>, ttlMs: number) =>
  `${base.replace(/^http/, 'ws')}/telephony/${platform}/stream/${t.mint(platform, id, { parameters, direction: 'outbound', ttlMs })}`;

/** The telephony route the platform asks once the stream ends (Vonage's is its synchronous event URL). */
const afterUrl = (t: CallTokens, base: string, platform: OutboundPlatformName, id: string) =>
  `${base}/telephony/${platform}/${platform === 'vonage' ? 'event' : 'after'}/${t.mint(platform, id, { kind: 'after', ttlMs: SIGNED_TTL_MS })}`;

/** The platforms whose credentials are in the environment (the account id or application id names each). */
export function platformsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<Record<OutboundPlatformName, OutboundPlatform>> {
  const out: Partial<Record<OutboundPlatformName, OutboundPlatform>> = {};
  if (env.TWILIO_ACCOUNT_SID) out.twilio = twilioOutbound();
  if (env.TELNYX_API_KEY) out.telnyx = telnyxOutbound();
  if (env.PLIVO_AUTH_ID) out.plivo = plivoOutbound();
  if (env.VONAGE_APPLICATION_ID) out.vonage = vonageOutbound();
  return out;
}

/** `POST /calls`, `GET /calls/:id` and the platforms' callbacks. */
function plugin(
  c: PluginContext,
  calls: OutboundCalls,
  opts: OutboundOptions,
  baseOf: (req: IncomingMessage) => string,
  place: (req: PlaceCallRequest, request: IncomingMessage) => Promise<OutboundCall>,
): ServerPlugin {
  const json = (res: ServerResponse, status: number, body: unknown) => reply(res, status, 'application/json', `${JSON.stringify(body)}\n`);
  const secret = opts.secret ?? process.env.HIWAR_CALLS_SECRET;

  /** The API's bearer secret: required always (placing calls spends money and reaches people), whatever `open` says. */
  const authorized = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!secret) {
      json(res, 403, { error: "the calls API is closed: set HIWAR_CALLS_SECRET (in your own server: outboundCalls({ secret }))" });
      return false;
    }
    if (!bearerMatches(req, secret)) {
      c.logger.warn({ route: req.url?.split('?')[0] }, 'calls API refused: wrong or missing bearer secret');
      json(res, 401, { error: 'wrong or missing bearer secret' });
      return false;
    }
    return true;
  };

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const id = /^\/calls\/([\w-]+)$/.exec(url.pathname)?.[1];
    if (url.pathname === '/calls' && req.method === 'POST') {
      if (!authorized(req, res)) return true;
      if (c.host.draining) return json(res, 503, { error: 'draining' });
      const raw = await readBody(req, 65536, TELEPHONY_ROUTE_DEFAULTS.bodyTimeoutMs);
      if (!Buffer.isBuffer(raw)) return json(res, raw === 'too large' ? 413 : 408, { error: `body ${raw}` });
      let body: PlaceCallRequest;
      try {
        body = JSON.parse(raw.toString() || '{}');
      } catch {
        return json(res, 400, { error: 'the body is not JSON' });
      }
      try {
        return json(res, 201, await place(body, req));
      } catch (err) {
        if (err instanceof PlaceCallError) return json(res, 400, { error: err.message });
        if (err instanceof DialError) return json(res, 502, { error: err.message });
        // The drain began while the request was read: nothing was dialled.
        if (err instanceof CallRefused && err.reason === 'draining') return json(res, 503, { error: 'draining' });
        return json(res, 500, { error: (err as Error).message });
      }
    }
    if (id && req.method === 'GET') {
      if (!authorized(req, res)) return true;
      const call = await calls.lookup(id);
      return call ? json(res, 200, call) : json(res, 404, { error: `no call ${id}` });
    }
    // GET /calls is the list of recorded calls (`--analytics`), a page: a script asking for it
    // without Accept: text/html landed here and was told only of the calls API.
    if (url.pathname === '/calls' && req.method === 'GET') {
      return json(res, 405, { error: 'the calls API is POST /calls or GET /calls/:id; the list of recorded calls (hiwar serve --analytics) is a page for browsers: ask with Accept: text/html and HIWAR_REVIEW_SECRET, and one call as JSON at /calls/<id>/review.json' });
    }
    return json(res, 405, { error: 'POST /calls or GET /calls/:id' });
  }

  /** `/outbound/<platform>/<status|answer>/<token>`: the call's token, and the platform's signature when its secret is set. */
  async function callback(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const [, , name, route, token] = url.pathname.split('/');
    const platform = name as OutboundPlatformName;
    const provider = BY_NAME[platform];
    const client = calls.client(platform);
    if (!provider || !client || (route !== 'status' && !(route === 'answer' && client.answer))) return reply(res, 404, 'text/plain', 'unknown route\n');
    const claims = c.tokens.verify(token, `outbound:${platform}`, 'after');
    if (!claims) {
      c.logger.warn({ platform }, 'outbound callback refused: invalid or expired token');
      return reply(res, 401, 'text/plain', 'invalid or expired token\n');
    }
    const rawBody = await readBody(req, 65536, TELEPHONY_ROUTE_DEFAULTS.bodyTimeoutMs);
    if (!Buffer.isBuffer(rawBody)) return reply(res, rawBody === 'too large' ? 413 : 408, 'text/plain', `body ${rawBody}\n`);
    const params = parseParams(req, url, rawBody);
    const signature = opts.secrets?.[platform] ?? (provider.secretEnv ? process.env[provider.secretEnv] : undefined);
    if (signature && provider.verifySignature) {
      const ctx = { req, res, url, rawBody, params, publicRequestUrl: baseOf(req) + url.pathname + url.search, firstUse: (key: string, ttlMs: number) => c.ledger.spend(`once:outbound:${platform}:${key}`, ttlMs) } as unknown as WebhookContext;
      if (!(await provider.verifySignature(ctx, signature))) {
        c.logger.warn({ platform, call: claims.callId }, 'outbound callback signature refused');
        return reply(res, 403, 'text/plain', 'bad or missing signature\n');
      }
    }
    let known: boolean;
    try {
      known = await calls.report(claims.callId, platform, params);
    } catch (err) {
      // The records' store (Redis) is unreachable: the platform retries a 5xx.
      c.logger.warn({ platform, call: claims.callId, err: (err as Error).message }, 'outbound callback not recorded');
      return reply(res, 503, 'text/plain', 'try again\n');
    }
    if (!known) return reply(res, 404, 'text/plain', 'unknown call\n');
    if (route === 'status' || !client.answer) return reply(res, 204, 'text/plain', '');
    const call = (await calls.lookup(claims.callId))!;
    // Plivo asks for the call's markup once it is answered: the media token is minted now.
    const base = baseOf(req);
    const stream = streamUrl(c.tokens, base, platform, call.id, { ...call.variables, From: call.from, To: call.to }, c.tokens.ttlMs);
    const after = afterUrl(c.tokens, base, platform, call.id);
    const a = client.answer(stream, after);
    return reply(res, 200, a.contentType, a.body);
  }

  return {
    name: 'outbound',
    async handleRequest(req, res, url) {
      if (url.pathname === '/calls' || url.pathname.startsWith('/calls/')) return api(req, res, url);
      if (url.pathname.startsWith('/outbound/')) return callback(req, res, url);
      return false;
    },
    // The records' own connections (Redis's subscriber); the records' store itself is the caller's.
    close: () => calls.close(),
  };
}
