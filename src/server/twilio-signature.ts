import { createHmac } from 'node:crypto';

/**
 * Twilio's request signature (`X-Twilio-Signature`): HMAC-SHA1, keyed with the auth token, of the
 * URL followed by the POST fields sorted by name, in base64. Here in `src/` because both the
 * Twilio transport (which checks it) and `hiwar/testing`'s fake Twilio (which signs with it) use it.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = url + Object.keys(params).sort().map((k) => k + params[k]).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}
