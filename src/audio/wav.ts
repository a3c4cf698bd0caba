import type Wavefile from 'wavefile';
import { loadWavefile } from './wavefile.ts';

export interface PcmAudio {
  samples: Int16Array;
  sampleRate: number;
}

/**
 * A PCM16 WAV file (`samples` interleaved when `channels` > 1). Mono and stereo: the canonical
 * 44-byte header and the samples, written directly (the bytes wavefile writes, without its
 * per-sample work); more channels take wavefile's WAVE_FORMAT_EXTENSIBLE header.
 */
export function encodeWav(samples: Int16Array, sampleRate: number, channels = 1): Uint8Array<ArrayBuffer> {
  if (channels > 2 || !LITTLE_ENDIAN) {
    const wav = new (loadWavefile().WaveFile)();
    wav.fromScratch(channels, sampleRate, '16', samples);
    // Copied onto a plain ArrayBuffer, as the bytes written below are: a Blob or File takes them.
    return Uint8Array.from(wav.toBuffer());
  }
  const out = new Uint8Array(44 + samples.byteLength);
  const v = new DataView(out.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => v.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  v.setUint32(4, 36 + samples.byteLength, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, channels, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * channels * 2, true);
  v.setUint16(32, channels * 2, true);
  v.setUint16(34, 16, true);
  ascii(36, 'data');
  v.setUint32(40, samples.byteLength, true);
  new Int16Array(out.buffer, 44, samples.length).set(samples);
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
/** WAVE_FORMAT_EXTENSIBLE's PCM sub-format: the GUID's tail after its first two bytes. */
const PCM_GUID_TAIL = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71];

/**
 * A 16-bit PCM WAV read directly (interleaved samples, copied), or undefined for any other
 * layout (float, 8/24/32-bit, compressed, malformed), which wavefile reads. Most WAVs here are
 * 16-bit (espeak-ng's, recordings, uploads), and wavefile's generic reader was the largest CPU
 * cost of voicing a line. A data chunk whose size overruns the file (a WAV streamed to a pipe, as
 * espeak-ng writes it) ends with the file.
 */
export function readPcm16Wav(bytes: Uint8Array): { samples: Int16Array; sampleRate: number; channels: number } | undefined {
  if (bytes.byteLength < 12 || !LITTLE_ENDIAN) return undefined;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
  if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE') return undefined;
  let fmt: { channels: number; sampleRate: number } | undefined;
  for (let at = 12; at + 8 <= bytes.byteLength; ) {
    const id = tag(at);
    const size = v.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.byteLength) return undefined;
      const format = v.getUint16(body, true);
      const channels = v.getUint16(body + 2, true);
      const pcm = format === 1 || (format === 0xfffe && size >= 40 && body + 40 <= bytes.byteLength && v.getUint16(body + 24, true) === 1 && PCM_GUID_TAIL.every((b, i) => bytes[body + 26 + i] === b));
      if (!pcm || v.getUint16(body + 14, true) !== 16 || channels < 1 || v.getUint16(body + 12, true) !== channels * 2) return undefined;
      fmt = { channels, sampleRate: v.getUint32(body + 4, true) };
    } else if (id === 'data') {
      if (!fmt) return undefined;
      const end = Math.min(bytes.byteLength, body + size);
      const frames = Math.floor((end - body) / (2 * fmt.channels));
      const samples = new Int16Array(frames * fmt.channels);
      new Uint8Array(samples.buffer).set(bytes.subarray(body, body + samples.byteLength));
      return { samples, sampleRate: fmt.sampleRate, channels: fmt.channels };
    }
    at = body + size + (size & 1);
  }
  return undefined;
}

/**
 * Reads a WAV file of any common PCM or float layout as mono PCM16 (channels are averaged).
 * Throws a clear error for anything that is not a WAV file.
 */
export function decodeWav(bytes: Uint8Array): PcmAudio {
  const direct = readPcm16Wav(bytes);
  if (direct) return { samples: toMono(direct.samples, direct.channels), sampleRate: direct.sampleRate };
  let wav: Wavefile.WaveFile;
  try {
    wav = new (loadWavefile().WaveFile)(bytes);
  } catch (err) {
    throw new Error(`not a readable WAV file: ${(err as Error).message}`);
  }
  wav.toBitDepth('16');
  const fmt = wav.fmt as { numChannels: number; sampleRate: number };
  const interleaved = wav.getSamples(true, Int16Array) as unknown as Int16Array;
  return { samples: toMono(interleaved, fmt.numChannels), sampleRate: fmt.sampleRate };
}

/** Interleaved channels averaged into one. */
function toMono(interleaved: Int16Array, ch: number): Int16Array {
  if (ch === 1) return interleaved;
  const mono = new Int16Array(Math.floor(interleaved.length / ch));
  for (let i = 0; i < mono.length; i++) {
    let sum = 0;
    for (let c = 0; c < ch; c++) sum += interleaved[i * ch + c]!;
    mono[i] = Math.round(sum / ch);
  }
  return mono;
}

/** Little-endian PCM16 bytes as samples (copies when the bytes are not 2-aligned). */
export function bytesToPcm(bytes: Uint8Array): Int16Array {
  const even = bytes.byteLength - (bytes.byteLength % 2);
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, even / 2);
  return new Int16Array(bytes.slice(0, even).buffer);
}

export function pcmToBytes(pcm: Int16Array): Uint8Array {
  return new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
}
