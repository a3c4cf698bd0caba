import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * The HMAC job behind hiwar's signed tokens (room tokens: `RoomTokens`; media tokens, whose claims
 * name the caller, are sealed instead: `sealed-token.ts`):
 * claims as base64url JSON, a dot, and their HMAC-SHA256 under a server key. Opening one checks
 * the signature in constant time before a byte of the claims is parsed; what the claims must say
 * (scope, kind, expiry, single use) is each token's own rule.
 */
export function signClaims(key: Buffer, claims: object): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${body}.${mac(key, body)}`;
}

/** The claims of a token signed with `key`, or why there are none: not two dot-separated parts, or a signature that does not match. */
export function openSigned(key: Buffer, token: string): { ok: true; claims: unknown } | { ok: false; why: 'malformed' | 'invalid' } {
  const [body, sig, extra] = token.split('.');
  if (!body || !sig || extra !== undefined) return { ok: false, why: 'malformed' };
  if (!safeEqual(sig, mac(key, body))) return { ok: false, why: 'invalid' };
  try {
    return { ok: true, claims: JSON.parse(Buffer.from(body, 'base64url').toString()) };
  } catch {
    return { ok: false, why: 'malformed' };
  }
}

/** Constant-time string comparison (for tokens and signatures). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether `req` presents `secret` as its bearer token (`Authorization: Bearer <secret>`), compared in constant time. */
export function bearerMatches(req: IncomingMessage, secret: string): boolean {
  return safeEqual(/^Bearer (.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1] ?? '', secret);
}

function mac(key: Buffer, body: string): string {
  return createHmac('sha256', key).update(body).digest('base64url');
}
