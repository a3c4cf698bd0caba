import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * hiwar's tokens (media tokens: `CallTokens`; room tokens: `RoomTokens`), whose claims nobody but
 * the server can read: AES-256-GCM over the claims' JSON, as one base64url string (12-byte
 * nonce, ciphertext, 16-byte tag). Their URLs pass through the platform's and every proxy's
 * access logs, and their claims name the caller and the callee: signed with an HMAC, as they
 * were, the claims were readable base64. GCM's tag authenticates them as the HMAC did.
 */
const NONCE = 12;
const TAG = 16;

/** The 256-bit key of sealed tokens, derived from a server secret (the same secret, the same key, on every worker and instance). */
export function sealingKey(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `hiwar ${purpose}`, 32));
}

/** `claims` sealed under `key` (from `sealingKey`). */
export function sealClaims(key: Buffer, claims: object): string {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(JSON.stringify(claims)), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
}

/** The claims of a token sealed under `key`, or undefined: not one (another key, tampered, another format). */
export function openSealed(key: Buffer, token: string): unknown {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const raw = Buffer.from(token, 'base64url');
  // Canonical only: unused bits in the last character would let one token be written several ways.
  if (raw.length <= NONCE + TAG || raw.toString('base64url') !== token) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE), { authTagLength: TAG });
    decipher.setAuthTag(raw.subarray(raw.length - TAG));
    const plain = Buffer.concat([decipher.update(raw.subarray(NONCE, raw.length - TAG)), decipher.final()]);
    return JSON.parse(plain.toString());
  } catch {
    return undefined;
  }
}
