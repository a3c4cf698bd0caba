import { bytesToPcm } from '../../audio/wav.ts';
import { chunks } from '../streams.ts';
import type { PcmStream } from '../types.ts';

/** Reads `rate=N` from a content type such as audio/raw;codec=pcm16;rate=24000;channels=1. */
export function rateFromContentType(contentType: string | null, fallback: number): number {
  const m = /(?:^|;)\s*rate=(\d+)/i.exec(contentType ?? '');
  return m ? Number(m[1]) : fallback;
}

/**
 * PCM16 chunks of a streaming response. Chunks are re-cut to whole samples so that a consumer
 * never sees half a sample at a network boundary.
 */
export function pcmStream(res: Response, fallbackRate: number): PcmStream {
  const contentType = res.headers.get('content-type') ?? 'audio/raw';
  return {
    sampleRate: rateFromContentType(contentType, fallbackRate),
    contentType,
    async *[Symbol.asyncIterator]() {
      let carry: Uint8Array | undefined;
      for await (const c of chunks(res.body)) {
        const data = carry ? concat(carry, c) : c;
        const whole = data.length - (data.length % 2);
        carry = whole < data.length ? data.slice(whole) : undefined;
        if (whole > 0) yield data.subarray(0, whole);
      }
    },
  };
}

/** All the audio of a stream, as samples. */
export async function collectPcm(stream: PcmStream): Promise<Int16Array> {
  const parts: Uint8Array[] = [];
  for await (const p of stream) parts.push(p);
  return new Int16Array(bytesToPcm(Buffer.concat(parts)));
}

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
