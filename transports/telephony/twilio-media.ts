/**
 * Twilio's caller `media` message read from its bytes, as the socket gave them. Fifty arrive a
 * second per call, always in the flat shape Twilio documents. Made into a string and given to
 * `JSON.parse`, each became the message's text, an object tree, the payload's text and a buffer
 * of its base64 (about 1 KB of garbage a frame, which a 300-call process collects many times a
 * second). Here the payload's base64 goes straight to its bytes, cut from the frame slab.
 *
 * Only the plain shape is read: `"event":"media"` first, no backslash (so every quote opens or
 * closes a string and a key cannot be found inside a value), a `media` object with no object
 * inside it, no spaces around its fields, a payload of plain base64. Anything else gives
 * `undefined`, and the message is decoded and parsed as JSON, as every other message is.
 */
import { frameSlab } from '../../src/audio/sample-slab.ts';
import type { Inbound } from './provider.ts';

const bytesOf = (s: string) => Buffer.from(s, 'latin1');
const HEAD = bytesOf('{"event":"media",');
const MEDIA = bytesOf('"media":{');
const PAYLOAD = bytesOf('"payload":"');
const CHUNK = bytesOf('"chunk":"');
const TRACK = bytesOf('"track":"');
const INBOUND = bytesOf('inbound"');
const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const EQUALS = 61;

/** Each byte's base64 value (standard alphabet), -1 for any other byte. */
const B64 = new Int8Array(256).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) B64[c.charCodeAt(0)] = i;

/**
 * What a plain Twilio media message says (its inbound frame, or nothing for the other track), or
 * undefined to parse it as JSON.
 */
export function readTwilioMedia(msg: Buffer): Inbound[] | undefined {
  const n = msg.length;
  if (n <= HEAD.length || msg[n - 1] !== CLOSE_BRACE || msg.compare(HEAD, 0, HEAD.length, 0, HEAD.length) !== 0) return undefined;
  if (msg.indexOf(BACKSLASH, HEAD.length) !== -1) return undefined;
  const open = msg.indexOf(MEDIA, HEAD.length);
  if (open < 0) return undefined;
  const from = open + MEDIA.length;
  const to = msg.indexOf(CLOSE_BRACE, from);
  if (to < 0) return undefined;
  const inner = msg.indexOf(OPEN_BRACE, from);
  if (inner !== -1 && inner < to) return undefined;
  const track = valueAt(msg, TRACK, from, to);
  if (track === -2) return undefined;
  const p = valueAt(msg, PAYLOAD, from, to);
  const c = valueAt(msg, CHUNK, from, to);
  if (p < 0 || c === -2) return undefined;
  if (track >= 0 && !(track + INBOUND.length <= n && msg.compare(INBOUND, 0, INBOUND.length, track, track + INBOUND.length) === 0)) return [];
  // A chunk that is not plain digits ("", "1e3") is read by JSON's path, where `Number()` decides it.
  const chunk = c < 0 ? NaN : digitsAt(msg, c, to);
  if (c >= 0 && Number.isNaN(chunk)) return undefined;
  const payload = base64Bytes(msg, p, msg.indexOf(QUOTE, p));
  if (!payload) return undefined;
  return [Number.isFinite(chunk) ? { type: 'audio', payload, seq: chunk } : { type: 'audio', payload }];
}

/** Where the string value of `key` starts between `from` and `to`; -1 without the key, -2 when its value is unclosed. */
function valueAt(msg: Buffer, key: Buffer, from: number, to: number): number {
  const at = msg.indexOf(key, from);
  if (at < 0 || at >= to) return -1;
  const start = at + key.length;
  const end = msg.indexOf(QUOTE, start);
  return end < 0 || end > to ? -2 : start;
}

/** The decimal number whose digits start at `at` and end at a quote; NaN when there are none or anything else is there. */
function digitsAt(msg: Buffer, at: number, to: number): number {
  let v = 0;
  let i = at;
  for (; i < to && msg[i] !== QUOTE; i++) {
    const d = msg[i]! - 48;
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  return i === at ? NaN : v;
}

/** Standard base64 between `from` and `to` decoded into the frame slab; undefined for anything not plain base64. */
export function base64Bytes(src: Uint8Array, from: number, to: number): Uint8Array | undefined {
  let end = to;
  while (end > from && to - end < 2 && src[end - 1] === EQUALS) end--;
  const len = end - from;
  if (len % 4 === 1 || (to - end && (to - from) % 4)) return undefined;
  const out = frameSlab.bytesOf((len * 3) >> 2);
  let o = 0;
  let i = from;
  for (; i + 4 <= end; i += 4) {
    const a = B64[src[i]!]!, b = B64[src[i + 1]!]!, c = B64[src[i + 2]!]!, d = B64[src[i + 3]!]!;
    if ((a | b | c | d) < 0) return undefined;
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = v >> 16;
    out[o++] = (v >> 8) & 255;
    out[o++] = v & 255;
  }
  if (i < end) {
    const a = B64[src[i]!]!, b = B64[src[i + 1]!]!, c = end - i === 3 ? B64[src[i + 2]!]! : 0;
    if ((a | b | c) < 0) return undefined;
    const v = (a << 18) | (b << 12) | (c << 6);
    out[o++] = v >> 16;
    if (end - i === 3) out[o++] = (v >> 8) & 255;
  }
  return out;
}
