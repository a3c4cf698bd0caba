/** Small PCM16 helpers shared by the engines and the transports. */

export function concatPcm(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function silence(seconds: number, sampleRate: number): Int16Array {
  return new Int16Array(Math.round(seconds * sampleRate));
}

export function rms(samples: Int16Array): number {
  if (!samples.length) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

/** Mixes noise into speech so that the speech-to-noise ratio over the speech is `snrDb`. */
export function mixAtSnr(speech: Int16Array, noise: Int16Array, snrDb: number): Int16Array {
  const speechRms = rms(speech.filter((s) => Math.abs(s) > 50)) || 1;
  const noiseRms = rms(noise) || 1;
  const gain = speechRms / noiseRms / 10 ** (snrDb / 20);
  const out = new Int16Array(speech.length);
  for (let i = 0; i < speech.length; i++) {
    const v = speech[i]! + gain * noise[i % noise.length]!;
    out[i] = Math.max(-32768, Math.min(32767, Math.round(v)));
  }
  return out;
}
