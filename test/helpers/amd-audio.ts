/**
 * Generated phone audio for the answering-machine detector's tests: silence, steady tones,
 * noise bursts, speech-like bursts (a gliding voiced pitch with harmonics and syllable rhythm) and line hiss,
 * as 8 kHz frames on a virtual timeline.
 */
import type { AudioFrame } from '../../src/audio/frame.ts';

export const RATE = 8000;

/** A deterministic pseudo-random source, so a test hears the same noise every run. */
export function noiseSource(seed = 1): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

export type Piece = { silence: number } | { tone: number; ms: number; amp?: number } | { speech: number; f0?: number; amp?: number } | { burst: number; amp: number };

/** PCM of pieces laid end to end, with hiss of `noiseAmp` over all of it. */
export function compose(pieces: Piece[], noiseAmp = 60, seed = 1): Int16Array {
  const ms = (p: Piece) => ('silence' in p ? p.silence : 'tone' in p ? p.ms : 'burst' in p ? p.burst : p.speech);
  const total = pieces.reduce((n, p) => n + Math.round((ms(p) * RATE) / 1000), 0);
  const out = new Float64Array(total);
  const burstNoise = noiseSource(seed + 7);
  let at = 0;
  for (const p of pieces) {
    const n = Math.round((ms(p) * RATE) / 1000);
    if ('burst' in p) for (let i = 0; i < n; i++) out[at + i] = p.amp * 2 * burstNoise(); // a loud, unvoiced noise burst
    else if ('tone' in p) for (let i = 0; i < n; i++) out[at + i] = (p.amp ?? 6000) * Math.sin((2 * Math.PI * p.tone * i) / RATE);
    else if ('speech' in p) {
      const f0 = p.f0 ?? 130;
      let phase = 0;
      for (let i = 0; i < n; i++) {
        const t = i / RATE;
        const pitch = f0 * (1 + 0.15 * Math.sin(2 * Math.PI * 1.3 * t));
        phase += (2 * Math.PI * pitch) / RATE;
        // Syllables: a 4 Hz envelope that never quite closes (connected speech).
        const env = 0.25 + 0.75 * Math.abs(Math.sin(Math.PI * 4 * t));
        let v = 0;
        for (let k = 1; k * pitch < 3500; k++) v += Math.sin(k * phase) / k;
        out[at + i] = (p.amp ?? 4000) * env * v;
      }
    }
    at += n;
  }
  const rnd = noiseSource(seed);
  const pcm = new Int16Array(total);
  for (let i = 0; i < total; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(out[i]! + noiseAmp * 2 * rnd())));
  return pcm;
}

/** 20 ms frames of `pcm` at `rate`, timed from `t0` (clock ms). */
export function frames(pcm: Int16Array, t0 = 1000, rate = RATE): AudioFrame[] {
  const n = (rate * 20) / 1000;
  const out: AudioFrame[] = [];
  for (let i = 0, k = 0; i < pcm.length; i += n, k++) out.push({ samples: pcm.subarray(i, i + n), sampleRate: rate, time: t0 + k * 20 });
  return out;
}
