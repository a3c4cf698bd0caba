/**
 * The far end's own codecs, independent of hiwar's: G.711 from the ITU-T table fixture
 * (decoding is a look-up; encoding picks the nearest step of the table), L16 in either byte
 * order with Node's Buffer, base64 and JSON with the platform's plain tools. A far end built on
 * these cannot share a mistake with the transport it talks to.
 */
import type { WireMessage } from './far-end.ts';
import { g711Table } from './fixture-files.ts';

type Law = 'mulaw' | 'alaw';
const tables = g711Table();
const encoders: Partial<Record<Law, Uint8Array>> = {};

/** Every 16-bit sample → the code whose table value is nearest (+0 for mu-law's two zeros). */
function encoderOf(law: Law): Uint8Array {
  const cached = encoders[law];
  if (cached) return cached;
  const steps = tables[law].map((value, code) => ({ value, code })).filter((s) => !(law === 'mulaw' && s.code === 0x7f)).sort((a, b) => a.value - b.value);
  const out = new Uint8Array(65536);
  let i = 0;
  for (let s = -32768; s < 32768; s++) {
    while (i + 1 < steps.length && Math.abs(steps[i + 1]!.value - s) <= Math.abs(steps[i]!.value - s)) i++;
    out[s & 0xffff] = steps[i]!.code;
  }
  return (encoders[law] = out);
}

/** G.711 bytes → PCM16, from the standard's table. */
export const g711Decode = (law: Law, bytes: Uint8Array): Int16Array => Int16Array.from(bytes, (b) => tables[law][b]!);

/** PCM16 → G.711 bytes: the nearest step of the standard's table. */
export function g711Encode(law: Law, pcm: Int16Array): Uint8Array {
  const t = encoderOf(law);
  return Uint8Array.from(pcm, (s) => t[s & 0xffff]!);
}

/** PCM16 → L16 bytes. */
export function l16Encode(pcm: Int16Array, endian: 'le' | 'be' = 'le'): Uint8Array {
  const b = Buffer.alloc(pcm.length * 2);
  pcm.forEach((s, i) => (endian === 'le' ? b.writeInt16LE(s, i * 2) : b.writeInt16BE(s, i * 2)));
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** L16 bytes → PCM16 (an odd trailing byte ignored). */
export function l16Decode(bytes: Uint8Array, endian: 'le' | 'be' = 'le'): Int16Array {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Int16Array.from({ length: b.length >> 1 }, (_, i) => (endian === 'le' ? b.readInt16LE(i * 2) : b.readInt16BE(i * 2)));
}

export const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
export const fromBase64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));

/** A JSON text message. */
export const text = (value: unknown): WireMessage => ({ text: JSON.stringify(value) });

/** A text message's JSON object, or undefined (binary, not JSON, not an object). */
export function readJson(msg: WireMessage): Record<string, any> | undefined {
  if (!('text' in msg)) return undefined;
  try {
    const v = JSON.parse(msg.text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
