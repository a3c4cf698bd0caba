import { randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { openSealed, sealClaims, sealingKey } from './sealed-token.ts';
import { bearerMatches, safeEqual } from './secret-compare.ts';

/**
 * What a token grants. `media`: open the media stream of one call, once. `after`: answer the
 * platform's request once that stream ended (Twilio `<Connect action>`, Vonage's event URL); it
 * can never open media, so the long-lived URL in the markup places no call.
 */
export type TokenKind = 'media' | 'after';

/** What a per-call token carries. */
export interface TokenClaims {
  /** The adapter the token is for ('twilio'…): a token for one route is refused on another. */
  scope: string;
  kind: TokenKind;
  /** The platform's id of the call the webhook answered: its `start` must carry the same. */
  callId: string;
  /** Token id: what a spent token is remembered by. */
  jti: string;
  /** Custom parameters handed from the webhook to the stream (the caller's and callee's numbers among them): sealed, kept out of logs. */
  parameters?: Record<string, string>;
  /**
   * `outbound`: a call this server placed. `callId` is then hiwar's own id of the call, and the
   * platform's `start` names the platform's id, which was not known when the token was handed to
   * the platform's REST API (never to anyone else).
   */
  direction?: 'outbound';
  /** Expiry, epoch milliseconds. */
  exp: number;
}

/** Options of the token issuer. */
export interface CallTokenOptions {
  /** The secret the tokens' key is derived from; a random one per process when not given (tokens then die with the process). */
  secret?: string;
  /** How long a media URL handed out in a webhook answer stays valid. @default 300_000 */
  ttlMs?: number;
}

/** What `mint` may be told besides scope and call id. */
export interface MintOptions {
  /** @default 'media' */
  kind?: TokenKind;
  parameters?: Record<string, string>;
  /** See `TokenClaims.direction`. */
  direction?: 'outbound';
  /** @default the issuer's ttlMs */
  ttlMs?: number;
  now?: number;
}


/**
 * Per-call tokens for media URLs: the webhook answer (whose request was signed by the platform)
 * mints one, the media connection must show it. The claims are sealed (AES-256-GCM,
 * `sealed-token.ts`, on node:crypto) under a key derived from the server secret: the URL grants
 * the call without telling the platform's or a proxy's logs who calls whom, and the service key
 * is never involved. Checking a token is stateless (any worker or instance with the secret can);
 * spending it once is the `TokenLedger`'s job (`token-ledger.ts`).
 */
export class CallTokens {
  private readonly key: Buffer;
  readonly ttlMs: number;

  constructor(opts: CallTokenOptions = {}) {
    this.key = sealingKey(opts.secret ? Buffer.from(opts.secret) : randomBytes(32), 'call token');
    this.ttlMs = opts.ttlMs ?? 300_000;
  }

  /** A token of `kind` for `scope` and `callId`. A call id is required: the token is bound to it. */
  mint(scope: string, callId: string, opts: MintOptions = {}): string {
    if (!callId) throw new Error('a call token needs the call id (the webhook carried none)');
    const { kind = 'media', parameters, direction, ttlMs = this.ttlMs, now = Date.now() } = opts;
    const claims: TokenClaims = {
      scope,
      kind,
      callId,
      jti: randomBytes(12).toString('base64url'),
      exp: now + ttlMs,
      ...(parameters && Object.keys(parameters).length ? { parameters } : {}),
      ...(direction ? { direction } : {}),
    };
    return sealClaims(this.key, claims);
  }

  /** The claims of a valid, unexpired token of `kind` for `scope`; undefined otherwise. */
  verify(token: string | null | undefined, scope: string, kind: TokenKind = 'media', now = Date.now()): TokenClaims | undefined {
    if (!token) return undefined;
    const c = openSealed(this.key, token) as TokenClaims | undefined;
    const ok = !!c && c.scope === scope && c.kind === kind && typeof c.callId === 'string' && c.callId !== '' && typeof c.jti === 'string' && typeof c.exp === 'number' && c.exp > now;
    return ok ? c : undefined;
  }
}

export { bearerMatches, safeEqual };

/**
 * True for addresses only this machine can reach: `localhost`, 127.0.0.0/8, ::1 and their
 * IPv4-mapped form. The address is parsed, never matched by prefix: a name such as
 * `127.0.0.1.example.com` is not loopback. Used for warnings only: whether routes are open is
 * the explicit `--open` setting, never the bind address.
 */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  const family = isIP(h);
  return family !== 0 && LOOPBACK.check(h, family === 4 ? 'ipv4' : 'ipv6');
}

// BlockList also matches IPv4-mapped IPv6 (::ffff:127.0.0.1) against the IPv4 subnet.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
