import wavefile from 'wavefile';

export interface PcmAudio {
  samples: Int16Array;
  sampleRate: number;
}

/** A mono PCM16 WAV file. */
export function encodeWav(samples: Int16Array, sampleRate: number, channels = 1): Uint8Array {
  const wav = new wavefile.WaveFile();
  wav.fromScratch(channels, sampleRate, '16', samples);
  return wav.toBuffer();
}

/**
 * Reads a WAV file of any common PCM or float layout as mono PCM16 (channels are averaged).
 * Throws a clear error for anything that is not a WAV file.
 */
export function decodeWav(bytes: Uint8Array): PcmAudio {
  let wav: InstanceType<typeof wavefile.WaveFile>;
  try {
    wav = new wavefile.WaveFile(bytes);
  } catch (err) {
    throw new Error(`not a readable WAV file: ${(err as Error).message}`);
  }
  wav.toBitDepth('16');
  const fmt = wav.fmt as { numChannels: number; sampleRate: number };
  const interleaved = wav.getSamples(true, Int16Array) as unknown as Int16Array;
  const ch = fmt.numChannels;
  if (ch === 1) return { samples: interleaved, sampleRate: fmt.sampleRate };
  const mono = new Int16Array(Math.floor(interleaved.length / ch));
  for (let i = 0; i < mono.length; i++) {
    let sum = 0;
    for (let c = 0; c < ch; c++) sum += interleaved[i * ch + c]!;
    mono[i] = Math.round(sum / ch);
  }
  return { samples: mono, sampleRate: fmt.sampleRate };
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
