import { alaw, mulaw } from '../../src/audio/g711.ts';
import { frameSlab } from '../../src/audio/sample-slab.ts';
import type { MediaFormat } from './provider.ts';

/** Bytes of one `frameMs` frame of this format on the wire. */
export const frameBytes = (f: MediaFormat): number => (Math.round((f.sampleRate * f.frameMs) / 1000) * (f.codec === 'l16' ? 2 : 1));

/** Samples per outbound frame. */
export const frameSamples = (f: MediaFormat): number => Math.round((f.sampleRate * f.frameMs) / 1000);

/**
 * Wire bytes → PCM16 samples (G.711 expanded; L16 in the format's byte order; an odd trailing byte
 * dropped). The samples are a view of a shared slab (`frameSlab`), not an array of their own.
 */
export function decode(f: MediaFormat, bytes: Uint8Array): Int16Array {
  if (f.codec === 'mulaw') return mulaw.decode(bytes, frameSlab.samples(bytes.byteLength));
  if (f.codec === 'alaw') return alaw.decode(bytes, frameSlab.samples(bytes.byteLength));
  const n = bytes.byteLength >> 1;
  const view = new DataView(bytes.buffer, bytes.byteOffset, n * 2);
  const out = frameSlab.samples(n);
  const le = f.endian !== 'be';
  for (let i = 0; i < n; i++) out[i] = view.getInt16(i * 2, le);
  return out;
}

/** PCM16 samples → wire bytes, a view of the shared slab (`frameSlab`). */
export function encode(f: MediaFormat, samples: Int16Array): Uint8Array {
  if (f.codec === 'mulaw') return mulaw.encode(samples, frameSlab.bytesOf(samples.length));
  if (f.codec === 'alaw') return alaw.encode(samples, frameSlab.bytesOf(samples.length));
  const out = frameSlab.bytesOf(samples.length * 2);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const le = f.endian !== 'be';
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, le);
  return out;
}

/** Dual-tone DTMF audio for in-band digits (ITU-T Q.23 frequencies), with a gap after each. */
export function dtmfTones(digits: string, rate: number, toneMs = 100, gapMs = 80): Int16Array {
  const rows = [697, 770, 852, 941];
  const cols = [1209, 1336, 1477, 1633];
  const keys = ['123A', '456B', '789C', '*0#D'];
  const tone = Math.round((rate * toneMs) / 1000);
  const gap = Math.round((rate * gapMs) / 1000);
  const valid = [...digits.toUpperCase()].filter((d) => keys.some((k) => k.includes(d)));
  const out = new Int16Array(valid.length * (tone + gap));
  valid.forEach((d, k) => {
    const r = keys.findIndex((row) => row.includes(d));
    const c = keys[r]!.indexOf(d);
    for (let i = 0; i < tone; i++) {
      const t = i / rate;
      out[k * (tone + gap) + i] = Math.round(8000 * (Math.sin(2 * Math.PI * rows[r]! * t) + Math.sin(2 * Math.PI * cols[c]! * t)));
    }
  });
  return out;
}
