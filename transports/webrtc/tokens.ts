import { randomBytes } from 'node:crypto';
import { openSealed, sealClaims, sealingKey } from '../../src/server/sealed-token.ts';
import type { PeerRole } from './protocol.ts';

export type { PeerRole };

/** What a room token grants: the room, the role, parameters and expiry. */
export interface RoomGrant {
  room: string;
  role: PeerRole;
  /** Who the caller is, as the user's backend knows them; reaches the agent as call parameters. */
  parameters: Record<string, string>;
  /** Expiry, epoch milliseconds. */
  exp: number;
  nonce: string;
}

export interface TokenOptions {
  /** The secret the tokens' key is derived from; set the same one on every server of a cluster. @default random per process */
  signingKey?: string | Buffer;
  /** How long a token may wait before it is used to join. @default 60_000 */
  ttlMs?: number;
}

export const TOKEN_DEFAULTS = { ttlMs: 60_000 } as const;

/** A room token is missing, malformed, forged or expired. */
export class TokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenError';
  }
}

const b64 = (b: Buffer) => b.toString('base64url');

/**
 * Short-lived, single-use room tokens: a sealed grant (room, role, parameters, expiry; AES-256-GCM
 * under a key derived from the signing key), so any server holding that key can check one
 * without a shared store, and no one else can read or alter it. A token opens one join; a used
 * nonce is remembered until the token would have expired anyway.
 */
export class RoomTokens {
  private readonly key: Buffer;
  readonly ttlMs: number;
  private readonly used = new Map<string, number>();

  constructor(opts: TokenOptions = {}, private readonly now: () => number = Date.now) {
    this.key = sealingKey(opts.signingKey ? Buffer.from(opts.signingKey) : randomBytes(32), 'room token');
    this.ttlMs = opts.ttlMs ?? TOKEN_DEFAULTS.ttlMs;
  }

  /** Seals a token for a room and role, with its expiry. */
  issue(room: string, role: PeerRole, parameters: Record<string, string> = {}): { token: string; expiresAt: number } {
    const grant: RoomGrant = { room, role, parameters, exp: this.now() + this.ttlMs, nonce: b64(randomBytes(12)) };
    return { token: sealClaims(this.key, grant), expiresAt: grant.exp };
  }

  /** Checks and spends a token. Throws `TokenError` with a reason fit to show the browser. */
  redeem(token: string): RoomGrant {
    const grant = this.verify(token);
    this.used.set(grant.nonce, grant.exp);
    return grant;
  }

  /** Checks a token without spending it (a join about to be redirected to another server). */
  verify(token: string): RoomGrant {
    // Sealed as the media tokens are (sealed-token.ts): the join URL (`/?token=`) shows nothing of
    // the caller's parameters. A room token's failure is thrown with a reason fit for the browser,
    // where a media token's is only logged (CallTokens returns undefined).
    const grant = openSealed(this.key, token) as RoomGrant | undefined;
    if (!grant || typeof grant !== 'object') throw new TokenError('invalid token');
    const now = this.now();
    for (const [nonce, exp] of this.used) if (exp < now) this.used.delete(nonce);
    if (grant.exp < now) throw new TokenError('token expired');
    if (this.used.has(grant.nonce)) throw new TokenError('token already used');
    return grant;
  }
}
