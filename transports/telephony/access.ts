/**
 * Who may use each platform's routes, decided once at start from what the operator configured:
 * the platform's signing secret, the static media token, and the explicit `open` setting
 * (`hiwar serve --open`). Closed unless told otherwise: a route with no secret is refused, never
 * opened because of the address the server is bound to.
 */
import type { TelephonyProvider } from './provider.ts';

/** What one platform's routes require. */
export interface RouteAccess {
  provider: string;
  /** The call webhook: checked signature, open (development), refused, or none (media-only platform). */
  webhook: 'signed' | 'open' | 'closed' | 'none';
  /** Media connections that show no valid per-call token: `static` takes `?token=<HIWAR_MEDIA_TOKEN>`. */
  tokenless: 'static' | 'open' | 'closed';
  /** One line for the start-up summary. */
  line: string;
}

/** What the access of every platform is decided from. */
export interface AccessSettings {
  /** Development: routes without a secret are open. @default false */
  open?: boolean;
  mediaToken?: string;
  /** Signature secret of each platform (by name), undefined when not configured. */
  secretOf(p: TelephonyProvider): string | undefined;
}

/** How a provider's routes are guarded with these settings (webhook signature, media token, open), for the start-up line. */
export function routeAccess(p: TelephonyProvider, s: AccessSettings): RouteAccess {
  const hasWebhook = !!p.answer;
  const secretName = p.secretEnv ?? 'its secret';
  const secret = hasWebhook && p.verifySignature ? s.secretOf(p) : undefined;
  const webhook: RouteAccess['webhook'] = !hasWebhook ? 'none' : secret ? 'signed' : s.open ? 'open' : 'closed';
  const staticOk = !!p.staticMediaToken && !!s.mediaToken;
  // A platform with a configured secret or static token stays closed to tokenless media even with --open.
  const tokenless: RouteAccess['tokenless'] = staticOk ? 'static' : s.open && !secret ? 'open' : 'closed';
  const parts: string[] = [];
  if (webhook === 'signed') parts.push(`webhooks checked against ${secretName}, media the per-call token they hand out`);
  if (webhook === 'closed') parts.push(`webhooks CLOSED: set ${secretName}`);
  if (webhook === 'open') parts.push(`webhooks OPEN without a signature (--open, no ${secretName})`);
  if (tokenless === 'static') parts.push('media with ?token=<HIWAR_MEDIA_TOKEN>');
  else if (tokenless === 'open') parts.push('media OPEN without a token (--open)');
  else if (!hasWebhook || p.staticMediaToken) parts.push('media CLOSED: set HIWAR_MEDIA_TOKEN');
  return { provider: p.name, webhook, tokenless, line: `${p.name.padEnd(10)} ${parts.join('; ')}` };
}
