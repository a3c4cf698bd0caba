import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { CallHost, ServerPlugin } from '../../src/server/types.ts';
import type { CallInfo } from '../../src/transport/types.ts';
import { safeEqual, type CallTokens, type MintOptions, type TokenClaims } from '../../src/server/tokens.ts';
import { callMediaKey, MemoryTokenLedger, type TokenLedger } from '../../src/server/token-ledger.ts';
import type { Logger } from '../../src/session/logger.ts';
import { traceWebhook } from '../../src/observability/trace-context.ts';
import { routeAccess, type RouteAccess } from './access.ts';
import { MEDIA_CONNECTION_DEFAULTS, MediaConnection } from './connection.ts';
import type { MediaStreamOptions, PlatformHooks } from './media-stream.ts';
import type { AfterStream, TelephonyProvider, WebhookContext } from './provider.ts';
import { readBody as readLimitedBody } from '../../src/server/read-body.ts';
import { docPath } from '../../src/docs-path.ts';

/** Options of the telephony routes (`/telephony/<provider>`). */
export interface TelephonyOptions {
  providers: TelephonyProvider[];
  tokens: CallTokens;
  /**
   * Development only (`hiwar serve --open`): the routes of a platform with no secret configured
   * take unsigned webhooks and media without a token. A platform whose secret (or, for those
   * without a webhook, the static media token) is set stays closed. Never inferred from the
   * bind address. @default false
   */
  open?: boolean;
  /**
   * A fixed token for platforms pointed straight at a media URL (FreeSWITCH, Asterisk, jambonz,
   * pcm): `?token=`. Refused on every platform whose calls come through a webhook.
   */
  mediaToken?: string;
  /**
   * Where spent media tokens and webhook nonces are remembered (each opens one call). Pass a
   * `RedisTokenLedger` when instances share a load balancer. @default a MemoryTokenLedger
   */
  ledger?: TokenLedger;
  /** Signature secrets by provider name; default: each provider's `secretEnv` variable. */
  secrets?: Record<string, string | undefined>;
  /** REST hooks by provider (transfer, hang-up by API), wired to the user's credentials. */
  hooks?: Record<string, PlatformHooks>;
  media?: MediaStreamOptions;
  logger?: Logger;
  /** Largest webhook body accepted. @default 65536 (`TELEPHONY_ROUTE_DEFAULTS`) */
  maxBodyBytes?: number;
  /** A webhook body must have arrived within this, or the request is cut (408). @default 10000 */
  bodyTimeoutMs?: number;
  /** Limits of each media connection (no start, silent platform, what is kept before start); see `MEDIA_CONNECTION_DEFAULTS`. */
  limits?: { startTimeoutMs?: number; idleTimeoutMs?: number; maxEarlyItems?: number; maxEarlyAudioBytes?: number };
}

/** Limits of the webhook routes (apply on a server you own too, where the agent server's own port limits do not). */
export const TELEPHONY_ROUTE_DEFAULTS = {
  /** Largest webhook body accepted (a platform's webhook is a few kilobytes). */
  maxBodyBytes: 65_536,
  /** Time for a webhook body to arrive once its headers have (a slow client is cut with 408). */
  bodyTimeoutMs: 10_000,
};

const AFTER_TTL_MS = 10 * 60_000;
const ROUTE_TTL_MS = 24 * 3600_000;
/**
 * How long a call id stays spent once its media opened: a webhook replayed within it (Twilio and
 * Plivo requests carry no time) cannot mint a second call on the same id.
 */
const SPENT_CALL_MS = 24 * 3600_000;

/**
 * The telephony routes as one server plugin: the platforms' webhooks (answered with the markup
 * that starts a stream to a tokenized URL) and their media WebSockets, each handed to the host
 * as a call.
 */
export function telephonyPlugin(host: CallHost, opts: TelephonyOptions): ServerPlugin & { connections(): number; access: RouteAccess[] } {
  const byName = new Map(opts.providers.map((p) => [p.name, p]));
  const ledger: TokenLedger = opts.ledger ?? new MemoryTokenLedger();
  const live = new Set<WebSocket>();
  const after = new Map<string, { what: AfterStream; at: number }>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 1 << 20,
    handleProtocols: (offered) => {
      for (const p of opts.providers) if (p.subprotocol && offered.has(p.subprotocol)) return p.subprotocol;
      return false;
    },
  });
  const secretOf = (p: TelephonyProvider) => opts.secrets?.[p.name] ?? (p.secretEnv ? process.env[p.secretEnv] : undefined);
  const access = new Map(opts.providers.map((p) => [p.name, routeAccess(p, { open: opts.open, mediaToken: opts.mediaToken, secretOf })]));

  /** `/telephony/<name>[/<route>[/<token>]]` */
  const route = (url: URL) => {
    const [, root, name, sub, token] = url.pathname.split('/');
    if (root !== 'telephony' || !name) return undefined;
    const provider = byName.get(name);
    return provider && { provider, sub: sub ?? '', token: token ?? url.searchParams.get('token') ?? undefined };
  };

  const rememberAfter = (callId: string, what: AfterStream) => {
    const now = Date.now();
    for (const [k, v] of after) if (now - v.at > AFTER_TTL_MS) after.delete(k);
    after.set(callId, { what, at: now });
  };

  /** Whether this call's platform asks a webhook once the stream ends (where the transfer is answered). */
  const afterStream = (p: TelephonyProvider, claims: TokenClaims | undefined) =>
    typeof p.transfersAfterStream === 'function' ? p.transfersAfterStream(claims?.parameters ?? {}) : !!p.transfersAfterStream;

  /**
   * A call the platform keeps up after its stream closes, with no hangup hook to end it: a hook
   * that says so (a `warning` event each time, the log line once) instead of leaving it silent.
   */
  let hangupWarned = false;
  const hangupWarning = (p: TelephonyProvider, claims: TokenClaims | undefined): PlatformHooks => {
    if (opts.hooks?.[p.name]?.hangup || !p.callOutlivesStream?.(claims?.parameters ?? {})) return {};
    return {
      hangup: async (call) => {
        const message = `hiwar closed the media stream of ${p.name} call ${call.callId}, and ${p.name} keeps the call up: give hooks.${p.name}.hangup (providerHooks.${p.name}.hangup of createAgentServer) that ends it by ${p.name}'s API (${docPath('docs/telephony.md')}#${p.name})`;
        if (!hangupWarned) opts.logger?.warn({ provider: p.name, callId: call.callId, warning: 'hangup_hook_missing' }, message);
        hangupWarned = true;
        host.warn?.({ code: 'hangup_hook_missing', call, message });
      },
    };
  };

  const refuse = (socket: Duplex, status: string, why: string, fields: Record<string, unknown>) => {
    opts.logger?.warn(fields, `media connection refused: ${why}`);
    // The reason in the body too: a far end's developer sees the status alone otherwise (no secret is in it).
    const body = `media connection refused: ${why}\n`;
    if (!socket.destroyed) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };

  function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): boolean {
    const r = route(url);
    if (!r || (r.sub !== '' && r.sub !== 'stream')) return false;
    const provider = r.provider;
    const claims = opts.tokens.verify(r.token, provider.name, 'media');
    // A connection holds a call's place from now until its start: pending ones count against the
    // limit. While draining, only the media of a call promised before (a webhook answered, a call placed here) gets one.
    // Closed by then without a start: the start timeout, from a moment later, seen by a watchdog that looks every second at most.
    const until = Date.now() + (opts.limits?.startTimeoutMs ?? MEDIA_CONNECTION_DEFAULTS.startTimeoutMs) + 1000;
    const hold = host.hold ? host.hold({ provider: provider.name, until, ...(claims ? { call: `${provider.name}:${claims.callId}` } : {}) }) : host.draining ? undefined : { release() {} };
    if (!hold) {
      refuse(socket, '503 Service Unavailable', host.draining ? 'draining' : 'the server is full (running calls and connections not started yet)', { provider: provider.name });
      return true;
    }
    const no = (status: string, why: string, fields: Record<string, unknown>) => {
      hold.release();
      refuse(socket, status, why, { provider: provider.name, ...fields });
    };
    if (claims) {
      // One call per token: its call id is spent the first time (a replay, or a token minted by a
      // replayed webhook for the same call, finds it spent).
      ledger.spend(callMediaKey(`${provider.name}:${claims.callId}`), SPENT_CALL_MS).then(
        (first) => (first ? accept(req, socket, head, url, provider, claims, hold) : no('403 Forbidden', 'token already used (replay)', { callId: claims.callId })),
        (err: Error) => no('503 Service Unavailable', 'token ledger unreachable', { callId: claims.callId, err: err.message }),
      );
      return true;
    }
    const a = access.get(provider.name)!;
    const staticOk = a.tokenless === 'static' && !!r.token && safeEqual(r.token, opts.mediaToken!);
    // A token that was shown must be valid, even where tokenless media is open: a clear refusal beats a silent downgrade.
    if (staticOk || (a.tokenless === 'open' && !r.token)) {
      accept(req, socket, head, url, provider, undefined, hold);
      return true;
    }
    const why = !r.token ? 'no token' : opts.tokens.verify(r.token, provider.name, 'after') ? 'an after-route token cannot open media' : 'invalid or expired token';
    no('401 Unauthorized', why, {});
    return true;
  }

  function accept(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, provider: TelephonyProvider, claims: TokenClaims | undefined, hold: { release(): void }): void {
    if (socket.destroyed) return hold.release();
    // A handshake ws refuses never reaches the callback: the place is given back when the socket goes.
    socket.once('close', () => hold.release());
    wss.handleUpgrade(req, socket, head, (ws) => {
      live.add(ws);
      const conn = new MediaConnection({
        provider: provider.name,
        conn: provider.open({ url, headers: req.headers, claims }),
        sink: {
          send: (m) => {
            if (ws.readyState === ws.OPEN) ws.send('text' in m ? m.text : m.binary, { binary: !('text' in m) });
          },
          // ws writes each message to this socket (header and payload corked together): corked
          // around a pacing step, its messages leave in one write.
          cork: () => socket.cork(),
          uncork: () => socket.uncork(),
          close: (reason) => {
            if (ws.readyState !== ws.OPEN) return;
            // A close reason is at most 123 bytes: keep it short and ASCII (a model may give Arabic).
            try {
              ws.close(1000, (reason ?? '').replace(/[^\x20-\x7e]/g, '').slice(0, 100));
            } catch {
              ws.terminate();
            }
          },
        },
        host,
        media: opts.media,
        // A platform that asks a webhook once the stream ends (Twilio <Connect action>) transfers
        // there; otherwise only the user's REST hook can.
        // The decision is kept before the stream closes: the platform may ask right after.
        hooks: {
          ...(afterStream(provider, claims) ? { transfer: async (call: CallInfo, target: string, opts?: { summary?: string }) => rememberAfter(call.callId, { action: 'transfer', target, ...(opts?.summary ? { summary: opts.summary } : {}) }) } : {}),
          ...hangupWarning(provider, claims),
          ...opts.hooks?.[provider.name],
        },
        logger: opts.logger,
        claims,
        hold,
        ...opts.limits,
      });
      ws.on('message', (data, isBinary) => {
        // ws hands a Buffer (binaryType 'nodebuffer'): read it in place, no copy per message.
        const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
        if (isBinary) conn.receive({ binary: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) });
        else conn.receiveText(buf);
      });
      ws.on('close', (code) => {
        live.delete(ws);
        conn.closed(code === 1000 || code === 1005 ? 'normal' : `connection closed (${code})`);
      });
      ws.on('error', (err) => opts.logger?.warn({ provider: provider.name, err: err.message }, 'media socket error'));
    });
  }

  async function handleRequest(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const r = route(url);
    if (!r) return false;
    // The webhook's span (a child of its traceparent): the call it starts carries it in its token.
    const span = traceWebhook(req.headers, r.provider.name);
    try {
      return await answerWebhook(r, req, res, url, span.parameters);
    } finally {
      span.end(res.statusCode);
    }
  }

  async function answerWebhook(r: NonNullable<ReturnType<typeof route>>, req: IncomingMessage, res: ServerResponse, url: URL, traceParameters: Record<string, string>): Promise<boolean> {
    if (!r.provider.answer) return reply(res, 404, 'text/plain', `${r.provider.name} takes media connections only\n`);
    if (req.method !== 'POST' && req.method !== 'GET') return reply(res, 405, 'text/plain', 'method not allowed\n');
    const rawBody = await readBody(req, opts.maxBodyBytes ?? TELEPHONY_ROUTE_DEFAULTS.maxBodyBytes, opts.bodyTimeoutMs ?? TELEPHONY_ROUTE_DEFAULTS.bodyTimeoutMs);
    if (!Buffer.isBuffer(rawBody)) {
      opts.logger?.warn({ provider: r.provider.name }, `webhook body ${rawBody}`);
      res.setHeader('connection', 'close');
      return reply(res, rawBody === 'too large' ? 413 : 408, 'text/plain', `body ${rawBody}\n`);
    }
    const base = host.publicUrl(req);
    const routeToken = r.sub && r.token ? opts.tokens.verify(r.token, r.provider.name, 'after') : undefined;
    // Tokens are bound to the webhook's call id; none can be minted without one.
    const mintFor = (callId: string, o: MintOptions) => {
      if (!callId) throw new NoCallId();
      return opts.tokens.mint(r.provider.name, callId, o);
    };
    const ctx: WebhookContext = {
      req,
      res,
      url,
      rawBody,
      params: parseParams(req, url, rawBody),
      publicRequestUrl: base + url.pathname + url.search,
      streamUrl: (callId, parameters) => {
        const url = `${base.replace(/^http/, 'ws')}/telephony/${r.provider.name}/stream/${mintFor(callId, { parameters: { ...parameters, ...traceParameters } })}`;
        // The platform will connect for this call: a drain beginning now waits for it (token lifetime).
        host.promise?.(`${r.provider.name}:${callId}`, Date.now() + opts.tokens.ttlMs);
        return url;
      },
      // Route URLs are called when the stream ends, which may be hours later; they never open media.
      routeUrl: (sub, callId) => `${base}/telephony/${r.provider.name}/${sub}/${mintFor(callId, { kind: 'after', ttlMs: ROUTE_TTL_MS })}`,
      afterStream: (callId) => after.get(routeToken?.callId ?? callId)?.what,
      firstUse: (key, ttlMs) => ledger.spend(`once:${r.provider.name}:${key}`, ttlMs),
    };
    const secret = secretOf(r.provider);
    if (secret && r.provider.verifySignature) {
      if (!(await r.provider.verifySignature(ctx, secret))) {
        const check = r.provider.webhookCheck ?? 'signature';
        opts.logger?.warn({ provider: r.provider.name }, `webhook ${check} refused`);
        return reply(res, 403, 'text/plain', `bad or missing ${check} (checked against ${r.provider.secretEnv ?? 'its secret'})\n`);
      }
    } else if (access.get(r.provider.name)!.webhook !== 'open' && !routeToken) {
      opts.logger?.warn({ provider: r.provider.name }, `webhook refused: no signature secret configured (${r.provider.secretEnv ?? 'secret'}) and the server was not started with --open`);
      return reply(res, 403, 'text/plain', 'webhook signature secret not configured\n');
    }
    if (host.draining && !r.sub) return reply(res, 503, 'text/plain', 'draining\n');
    let answer;
    try {
      answer = await r.provider.answer(r.sub || 'answer', ctx);
    } catch (err) {
      if (!(err instanceof NoCallId)) throw err;
      opts.logger?.warn({ provider: r.provider.name }, 'webhook without a call id: no media URL handed out');
      return reply(res, 400, 'text/plain', 'the webhook carries no call id\n');
    }
    return reply(res, answer.status ?? 200, answer.contentType, answer.body);
  }

  return {
    name: 'telephony',
    access: [...access.values()],
    handleUpgrade,
    handleRequest,
    connections: () => live.size,
    async close() {
      for (const ws of live) ws.terminate();
      wss.close();
    },
  };
}

class NoCallId extends Error {}

/** Answers a request with a whole body. */
export function reply(res: ServerResponse, status: number, type: string, body: string): true {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
  return true;
}

/** The request's body, or why it was not read: larger than `limit`, or not all there within `timeoutMs`. */
export async function readBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer | 'too large' | 'too slow'> {
  const body = await readLimitedBody(req, { limit, totalMs: timeoutMs });
  return body === 'aborted' ? 'too slow' : body;
}

/** Form fields (Twilio, Plivo), JSON fields (Telnyx, Vonage) or the query of a GET, flattened to strings. */
export function parseParams(req: IncomingMessage, url: URL, body: Buffer): Record<string, string> {
  const type = String(req.headers['content-type'] ?? '');
  const out: Record<string, string> = {};
  if (type.includes('application/json')) {
    try {
      const v = JSON.parse(body.toString());
      const flat = (o: any, prefix = '') => {
        for (const [k, x] of Object.entries(o ?? {})) {
          if (x && typeof x === 'object' && !Array.isArray(x)) flat(x, `${prefix}${k}.`);
          else out[prefix + k] = String(x);
        }
      };
      flat(v);
    } catch {
      // unreadable JSON: no fields
    }
  } else if (body.length) for (const [k, v] of new URLSearchParams(body.toString())) out[k] = v;
  if (req.method === 'GET') for (const [k, v] of url.searchParams) out[k] ??= v;
  return out;
}
