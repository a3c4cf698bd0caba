import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { safeEqual } from '../server/tokens.ts';

/** The environment variable holding the review pages' secret. */
export const REVIEW_SECRET_ENV = 'HIWAR_REVIEW_SECRET';

/**
 * The secret a request presents: HTTP Basic's password (a browser asks for it itself, any user
 * name) or a bearer token (scripts).
 */
export function presented(req: IncomingMessage): string {
  const auth = String(req.headers.authorization ?? '');
  const bearer = /^Bearer (.+)$/i.exec(auth)?.[1];
  if (bearer) return bearer;
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(auth)?.[1];
  if (!basic) return '';
  const pair = Buffer.from(basic, 'base64').toString('utf8');
  return pair.slice(pair.indexOf(':') + 1);
}

/** Whether the request may see recorded calls; answers 403 (no secret set) or 401 (wrong) itself. */
export function authorized(req: IncomingMessage, res: ServerResponse, secret: string | undefined): boolean {
  if (!secret) {
    send(res, 403, 'text/plain; charset=utf-8', `the call review pages are closed: set ${REVIEW_SECRET_ENV}\n`);
    return false;
  }
  if (safeEqual(presented(req), secret)) return true;
  res.setHeader('WWW-Authenticate', 'Basic realm="hiwar calls", charset="UTF-8"');
  send(res, 401, 'text/plain; charset=utf-8', 'the review secret is missing or wrong\n');
  return false;
}

/**
 * Headers of every review answer: recordings of callers are personal data, so nothing is cached,
 * embedded elsewhere or sent on as a referrer; the page's one inline script is allowed by its hash.
 */
export function privateHeaders(res: ServerResponse, script?: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  const scripts = script ? `'sha256-${createHash('sha256').update(script).digest('base64')}'` : "'none'";
  res.setHeader('Content-Security-Policy', `default-src 'none'; script-src ${scripts}; style-src 'unsafe-inline'; media-src 'self' data:; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`);
}

/** Sends a whole answer. */
export function send(res: ServerResponse, status: number, type: string, body: string | Uint8Array, head = false): true {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': bytes.byteLength });
  res.end(head ? undefined : bytes);
  return true;
}
