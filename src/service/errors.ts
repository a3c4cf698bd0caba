/**
 * Typed errors for every way a call to the service can fail. The service's envelope
 * {errorCode, errorMessage} maps onto ServiceError and one subclass per status family.
 */
export type ErrorCode = number | string | undefined;

/** What a `ServiceError` is made from: the status and the service's error envelope. */
export interface ServiceErrorInit {
  status: number;
  errorCode?: ErrorCode;
  errorMessage: string;
  retryAfterMs?: number;
  endpoint?: string;
  /** The refusal's body as it came (the key redacted, cut to `ERROR_BODY_LIMITS.keptChars`). */
  body?: string;
}

/**
 * How much of a refusal's body an error holds: `body` keeps up to `keptChars` of it for
 * debugging; the message gives at most `summaryChars` of its words (an HTML page's title or
 * first text, plain text's start).
 */
export const ERROR_BODY_LIMITS = { keptChars: 16 * 1024, summaryChars: 200 } as const;

/** Said of a refusal that is an HTML page: the service answers JSON, so something in between spoke. */
export const HTML_REFUSAL_HINT = "the answer is an HTML page, not the service's: most likely a proxy, gateway or load balancer between hiwar and the service (check HIWAR_BASE_URL and the service's status); the whole page is on the error's `body`";

/**
 * A refused key (HTTP 401, a socket's 1008 "authentication required"): where the key comes from,
 * never the key itself.
 */
export const KEY_REFUSED_HINT = "the service refused the API key: set the right one in HIWAR_API_KEY (or ServiceClient's apiKey option), and check HIWAR_REGION: a key works only in the region that issued it";

/**
 * What to do about a refusal the service words but does not explain: a refused key, an unknown voice
 * ("voice_id nope does not exist") names the call that lists the voices on offer.
 */
export function refusalHint(status: number, errorMessage: string, body?: string): string | undefined {
  if (status === 401) return KEY_REFUSED_HINT;
  if (body !== undefined && isHtml(body)) return HTML_REFUSAL_HINT;
  if ((status === 400 || status === 404) && /\bvoice(?:_id)?\b.*\b(?:does not exist|not found|unknown)\b|\bunknown voice\b/i.test(errorMessage)) {
    return "list the voices on offer with the client's listVoices() (GET /voices), and give one of their voice_id";
  }
  return undefined;
}

/** The service answered with an error; `status`, `errorCode`, `retryAfterMs` and `retryable` say which. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly status: number;
  readonly errorCode: ErrorCode;
  readonly errorMessage: string;
  readonly retryAfterMs: number | undefined;
  readonly endpoint: string | undefined;
  /** What to do about it, when the service's words leave it unsaid (see `refusalHint`); in `message` too. */
  readonly hint: string | undefined;
  /**
   * The refusal's body as it came, for debugging (a gateway's whole HTML page, say), the key
   * redacted; `errorMessage` is its short, clean form. Undefined for errors made without one.
   */
  readonly body: string | undefined;

  constructor(init: ServiceErrorInit) {
    const where = init.endpoint ? ` ${init.endpoint}` : '';
    const code = init.errorCode !== undefined ? ` ${init.errorCode}` : '';
    const hint = refusalHint(init.status, init.errorMessage, init.body);
    super(`${init.status}${code}${where}: ${init.errorMessage}${hint ? `: ${hint}` : ''}`);
    this.hint = hint;
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.errorMessage = init.errorMessage;
    this.retryAfterMs = init.retryAfterMs;
    this.endpoint = init.endpoint;
    this.body = init.body;
  }

  /** 429 and 5xx may succeed if tried again; everything else will not. */
  get retryable(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

/** 400: the request was malformed or a parameter out of range. */
export class BadRequestError extends ServiceError {
  override name = 'BadRequestError';
}
/** Raised before any network traffic when a parameter breaks a documented rule. */
export class ValidationError extends BadRequestError {
  override name = 'ValidationError';
  constructor(errorMessage: string, endpoint?: string) {
    super({ status: 400, errorCode: 40001, errorMessage, endpoint });
  }
}
/** 401: the key is missing, wrong, or of the other region. */
export class AuthenticationError extends ServiceError {
  override name = 'AuthenticationError';
}
/** 402: the account's wallet is empty. */
export class InsufficientBalanceError extends ServiceError {
  override name = 'InsufficientBalanceError';
}
/** 403: the key may not use this endpoint. */
export class PermissionDeniedError extends ServiceError {
  override name = 'PermissionDeniedError';
}
/** 404: no such model, voice, transcription or job. */
export class NotFoundError extends ServiceError {
  override name = 'NotFoundError';
}
/** 413: the upload is larger than the endpoint takes. */
export class PayloadTooLargeError extends ServiceError {
  override name = 'PayloadTooLargeError';
}
/** 429: too many requests or sessions for the key; `retryAfterMs` says when to try again. */
export class RateLimitError extends ServiceError {
  override name = 'RateLimitError';
}
/** 5xx: the service failed; retried by idempotent calls. */
export class ServerError extends ServiceError {
  override name = 'ServerError';
}

/** The connection failed, timed out or was aborted before a status arrived. */
export class TransportError extends Error {
  override name = 'TransportError';
  constructor(
    message: string,
    readonly kind: 'network' | 'timeout' | 'aborted',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The service answered, but with a body that does not follow its own protocol. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

export function errorForStatus(init: ServiceErrorInit): ServiceError {
  const s = init.status;
  if (s === 400) return new BadRequestError(init);
  if (s === 401) return new AuthenticationError(init);
  if (s === 402) return new InsufficientBalanceError(init);
  if (s === 403) return new PermissionDeniedError(init);
  if (s === 404) return new NotFoundError(init);
  if (s === 413) return new PayloadTooLargeError(init);
  if (s === 429) return new RateLimitError(init);
  if (s >= 500) return new ServerError(init);
  return new ServiceError(init);
}

/**
 * Reads the envelope, the bare {message} form (denoise 404), an HTML page (a gateway's: its
 * title or first text) or plain text; the words are cut to `ERROR_BODY_LIMITS.summaryChars`.
 */
export function parseErrorBody(status: number, bodyText: string): { errorCode?: ErrorCode; errorMessage: string } {
  try {
    const body = JSON.parse(bodyText) as Record<string, unknown>;
    if (body && typeof body === 'object') {
      const code = body.errorCode ?? body.code;
      const message = body.errorMessage ?? body.message ?? body.error;
      return {
        errorCode: typeof code === 'number' || typeof code === 'string' ? code : undefined,
        errorMessage: typeof message === 'string' ? message : `HTTP ${status}`,
      };
    }
  } catch {
    // not JSON: fall through to the text
  }
  return { errorMessage: bodyWords(bodyText) || `HTTP ${status}` };
}

/**
 * The words of an error body that is not JSON, for a message: an HTML page's title or first
 * text (a gateway's page), or the text; cut to `ERROR_BODY_LIMITS.summaryChars`, '' when none.
 */
export function bodyWords(bodyText: string): string {
  const text = isHtml(bodyText) ? htmlSummary(bodyText) : bodyText.trim();
  return clip(text, ERROR_BODY_LIMITS.summaryChars);
}

/**
 * A page (or a fragment of one: some proxies answer `<h1>…</h1><p>…</p>`), not text that happens
 * to hold a `<`: it opens with a doctype or an HTML tag.
 */
function isHtml(text: string): boolean {
  return /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body|title|h[1-6]|p|div|center|pre|span|table|hr|br)\b/i.test(text);
}

/** An HTML page's title, else the words of its body: what a reader of the error needs from it. */
function htmlSummary(html: string): string {
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1];
  const words = (fragment: string) =>
    decodeEntities(fragment.replace(/<!--[\s\S]*?(?:-->|$)/g, ' ').replace(/<[^>]*>?/g, ' ')).replace(/\s+/g, ' ').trim();
  const fromTitle = title ? words(title) : '';
  if (fromTitle) return fromTitle;
  const body = html.replace(/<head\b[\s\S]*?<\/head\s*>/i, ' ').replace(/<(script|style|template)\b[\s\S]*?<\/\1\s*>/gi, ' ');
  return words(body);
}

/**
 * The character references error pages use (numeric, and the few named ones of plain prose). A
 * full decoder (the `entities` package) carries every named reference, too heavy for the browser
 * bundle this module is part of; an unknown name stays as written.
 */
function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(?:#(\d{1,7})|#x([\da-f]{1,6})|([a-z]+));/gi, (ref, dec?: string, hex?: string, name?: string) => {
    const code = dec !== undefined ? Number(dec) : hex !== undefined ? parseInt(hex, 16) : undefined;
    if (code !== undefined) return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ref;
    return named[name!.toLowerCase()] ?? ref;
  });
}

/** `text` cut to `max` characters, '…' marking a cut. */
export const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * The typed error for a refused request or socket upgrade: its status, its body's words (the
 * service's envelope, a gateway page's title, text), the body itself, the key redacted from
 * both, and its Retry-After header.
 */
export function errorForResponse(res: { status: number; body: string; retryAfter: string | null; endpoint: string }, apiKey: string | undefined): ServiceError {
  // Redacted before it is cut or summarised, so that no part of a key is left at a cut.
  const body = redact(res.body, apiKey);
  const parsed = parseErrorBody(res.status, body);
  return errorForStatus({
    status: res.status,
    errorCode: parsed.errorCode,
    errorMessage: redact(parsed.errorMessage, apiKey),
    retryAfterMs: parseRetryAfter(res.retryAfter),
    endpoint: res.endpoint,
    body: clip(body, ERROR_BODY_LIMITS.keptChars),
  });
}

/** Retry-After in seconds or as an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/**
 * The forms a key takes in text: as is, URL-encoded, and base64/base64url (for instance inside
 * a Basic auth header echoed by a proxy). A base64 copy depends on the key's offset in what was
 * encoded (mod 3), so each alignment contributes the part of its encoding that does not depend
 * on the neighbouring bytes.
 */
function secretForms(secret: string): string[] {
  let forms = formsCache.get(secret);
  if (!forms) {
    // A process holds one key or a few; the bound only keeps a key-rotating process from growing.
    if (formsCache.size >= 16) formsCache.clear();
    forms = computeSecretForms(secret);
    formsCache.set(secret, forms);
  }
  return forms;
}

/** Computed once per key: every message of every socket is redacted (profiled at 100 calls). */
const formsCache = new Map<string, string[]>();

function computeSecretForms(secret: string): string[] {
  const forms = new Set([secret, encodeURIComponent(secret)]);
  // TextEncoder and btoa, not Buffer: this module is bundled into the browser call page too.
  const bytes = new TextEncoder().encode(secret);
  const base64 = (u: Uint8Array) => btoa(Array.from(u, (c) => String.fromCharCode(c)).join(''));
  const encodings = {
    base64,
    base64url: (u: Uint8Array) => base64(u).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
  };
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    for (const enc of ['base64', 'base64url'] as const) {
      const full = encodings[enc](padded);
      if (shift === 0) forms.add(full).add(full.replace(/=+$/, ''));
      // Only characters made entirely of the key's bits are the same in every context.
      const core = full.slice(Math.ceil((shift * 4) / 3), Math.floor(((shift + bytes.length) * 4) / 3));
      if (core.length >= 8) forms.add(core);
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Removes the key (in any of its forms) from text that could reach a log or an error message. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4 || !text) return text;
  let out = text;
  for (const form of secretForms(secret)) out = out.split(form).join('[redacted]');
  return out;
}

/** A URL safe to print: credentials in the query are masked. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    for (const name of ['api_key', 'x-api-key', 'token']) {
      if (u.searchParams.has(name)) u.searchParams.set(name, 'redacted');
    }
    return u.toString();
  } catch {
    return '[invalid url]';
  }
}
