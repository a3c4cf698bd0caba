import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a per-call media token carries. */
export interface TokenClaims {
  /** The adapter the token is for ('twilio'…): a token for one route is refused on another. */
  scope: string;
  callId: string;
  /** Custom parameters handed from the webhook to the stream (kept out of logs, not secret). */
  parameters?: Record<string, string>;
  /** Expiry, epoch milliseconds. */
  exp: number;
}

/** Options of the token issuer. */
export interface CallTokenOptions {
  /** Signing secret; a random one per process when not given (tokens then die with the process). */
  secret?: string;
  /** How long a media URL handed out in a webhook answer stays valid. @default 300_000 */
  ttlMs?: number;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/**
 * Per-call tokens for media URLs: the webhook answer (whose request was signed by the platform)
 * mints one, the media connection must show it. HMAC-SHA256 over the claims with a server
 * secret; nothing to store, and the service key is never involved. Hand-written on node:crypto
 * because it is a dozen lines and a JWT library would add only parsing we do not need.
 */
export class CallTokens {
  private readonly secret: Buffer;
  private readonly ttlMs: number;

  constructor(opts: CallTokenOptions = {}) {
    this.secret = opts.secret ? Buffer.from(opts.secret) : randomBytes(32);
    this.ttlMs = opts.ttlMs ?? 300_000;
  }

  /** A token for `scope` and `callId`, valid `ttlMs` (default: the issuer's). */
  mint(scope: string, callId: string, parameters?: Record<string, string>, ttlMs = this.ttlMs, now = Date.now()): string {
    const claims: TokenClaims = { scope, callId, exp: now + ttlMs, ...(parameters && Object.keys(parameters).length ? { parameters } : {}) };
    const body = b64url(JSON.stringify(claims));
    return `${body}.${this.sign(body)}`;
  }

  /** The claims of a valid, unexpired token for `scope`; undefined otherwise. */
  verify(token: string | null | undefined, scope: string, now = Date.now()): TokenClaims | undefined {
    if (!token) return undefined;
    const [body, sig] = token.split('.');
    if (!body || !sig || !safeEqual(sig, this.sign(body))) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as TokenClaims;
      return claims.scope === scope && typeof claims.exp === 'number' && claims.exp > now ? claims : undefined;
    } catch {
      return undefined;
    }
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}

/** Constant-time string comparison (for tokens and signatures). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.') || host === '::ffff:127.0.0.1';
}
