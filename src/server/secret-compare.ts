import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

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
