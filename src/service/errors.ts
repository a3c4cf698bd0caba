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
}

/**
 * A refused key (HTTP 401, a socket's 1008 "authentication required"): where the key comes from,
 * never the key itself.
 */
export const KEY_REFUSED_HINT = "the service refused the API key: set the right one in HIWAR_API_KEY (or ServiceClient's apiKey option), and check HIWAR_REGION: a key works only in the region that issued it";

/**
 * What to do about a refusal the service words but does not explain: a refused key, an unknown voice
 * ("voice_id nope does not exist") names the call that lists the voices on offer.
 */
export function refusalHint(status: number, errorMessage: string): string | undefined {
  if (status === 401) return KEY_REFUSED_HINT;
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

  constructor(init: ServiceErrorInit) {
    const where = init.endpoint ? ` ${init.endpoint}` : '';
    const code = init.errorCode !== undefined ? ` ${init.errorCode}` : '';
    const hint = refusalHint(init.status, init.errorMessage);
    super(`${init.status}${code}${where}: ${init.errorMessage}${hint ? `: ${hint}` : ''}`);
    this.hint = hint;
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.errorMessage = init.errorMessage;
    this.retryAfterMs = init.retryAfterMs;
    this.endpoint = init.endpoint;
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

/** Reads the envelope, the bare {message} form (denoise 404) or plain text. */
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
  const text = bodyText.trim().slice(0, 300);
  return { errorMessage: text || `HTTP ${status}` };
}

/**
 * The typed error for a refused request or socket upgrade: its status, its body (the service's
 * envelope or text, the key redacted) and its Retry-After header.
 */
export function errorForResponse(res: { status: number; body: string; retryAfter: string | null; endpoint: string }, apiKey: string | undefined): ServiceError {
  const parsed = parseErrorBody(res.status, res.body);
  return errorForStatus({
    status: res.status,
    errorCode: parsed.errorCode,
    errorMessage: redact(parsed.errorMessage, apiKey),
    retryAfterMs: parseRetryAfter(res.retryAfter),
    endpoint: res.endpoint,
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
