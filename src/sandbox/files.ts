import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Downloadable files (voice samples, denoise results) are served only to a caller that shows a
 * valid key or holds a signed URL: the URLs the sandbox hands out carry `expires` (Unix seconds)
 * and `sig`, an HMAC of the file name and expiry under a secret that never leaves the process.
 */
export class FileSigner {
  private readonly secret = randomBytes(32);

  constructor(
    /** Lifetime of a URL handed out. @default 3600 s */
    readonly ttlS = 3600,
  ) {}

  private mac(name: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${name}\n${expires}`).digest('base64url');
  }

  /** `base/name?expires=…&sig=…`, valid for `ttlS` from `now`. */
  sign(base: string, name: string, now = Date.now()): string {
    const expires = Math.floor(now / 1000) + this.ttlS;
    return `${base}/${name.split('/').map(encodeURIComponent).join('/')}?expires=${expires}&sig=${this.mac(name, expires)}`;
  }

  /** 'ok', or why the query does not grant access to `name`. */
  check(name: string, query: URLSearchParams, now = Date.now()): 'ok' | 'missing' | 'expired' | 'invalid' {
    const sig = query.get('sig');
    const expires = Number(query.get('expires'));
    if (!sig || !query.has('expires')) return 'missing';
    if (!Number.isInteger(expires)) return 'invalid';
    const want = Buffer.from(this.mac(name, expires));
    const got = Buffer.from(sig);
    if (got.length !== want.length || !timingSafeEqual(got, want)) return 'invalid';
    return expires * 1000 < now ? 'expired' : 'ok';
  }
}

/** http://host:port/files for an API base such as http://host:port/uae/api/v1. */
export const filesBase = (apiBase: string): string => `${apiBase.replace(/\/(uae\/)?api\/v1$/, '')}/files`;
