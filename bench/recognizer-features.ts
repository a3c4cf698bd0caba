/**
 * Front-end trials for the spoken-word templates, without training anything: the templates
 * alone (nearest word by DTW at the best of the warps, no threshold), leave-one-speaker-out, as
 * `recognizer-errors` counts them, with the features made another way (the telephone band's
 * edges, mel bands, cepstra, the log floor, the line noise's floor subtracted per band).
 * The classifier is not retrained: these measure whether a front end ranks words better.
 * Usage: npm run bench -- recognizer-features [variant…]   (no variant: all of them)
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { cpuUsage } from 'node:process';
import { resample } from '../src/audio/resample.ts';
import { builtInVoices } from '../src/sandbox/catalogue.ts';
import { voiceText } from '../src/sandbox/engines/espeak.ts';
import { filterPower, frameBuffers, frameSpectrum, imel, mel, type MelFilter } from '../src/sandbox/engines/features.ts';
import { symmetricDtw, VOCABULARY_DEFAULTS } from '../src/sandbox/engines/vocabulary.ts';
import { WORD_FEATURES, WORD_FPS, normalizeWord, withDeltas, wordSegments, type WordBand } from '../src/sandbox/engines/word-features.ts';
import { benchHalf, loadNoises } from '../scripts/word-data.ts';
import { recordingsDir } from '../test/helpers/recordings.ts';
import { KEYWORDS, loadClips, phoneLine } from './recognizer-words.ts';

interface FrontEnd {
  edges: Record<WordBand, readonly [number, number]>;
  bands: number;
  cepstra: number;
  /** Log floor under the word's loudest mel power, dB. */
  floorDb: number;
  /** Subtract this many times each band's noise floor (10th percentile over the audio) before the log; 0: none. */
  subtract: number;
  /** Sinusoidal lifter (1 + L/2 sin(pi n / L)); 0: none. */
  lifter: number;
  /** Weight of the deltas in the distance. */
  deltaWeight: number;
  /** c0 (the loudness contour) left out. */
  dropC0: boolean;
}
const BASE: FrontEnd = { edges: { wide: WORD_FEATURES.wide, phone: WORD_FEATURES.phone }, bands: WORD_FEATURES.bands, cepstra: WORD_FEATURES.cepstra, floorDb: 60, subtract: 0, lifter: 0, deltaWeight: WORD_FEATURES.deltaWeight, dropC0: false };

const VARIANTS: Record<string, Partial<FrontEnd>> = {
  base: {},
  'floor-35': { floorDb: 35 },
  'floor-45': { floorDb: 45 },
  'subtract-1': { subtract: 1 },
  'subtract-2': { subtract: 2 },
  'edges-300-3400': { edges: { wide: WORD_FEATURES.wide, phone: [300, 3400] } },
  'edges-200-3600': { edges: { wide: WORD_FEATURES.wide, phone: [200, 3600] } },
  'bands-18': { bands: 18 },
  'bands-32': { bands: 32 },
  'cepstra-16': { cepstra: 16 },
  'cepstra-10': { cepstra: 10 },
  'lifter-22': { lifter: 22 },
  'subtract-1-floor-45': { subtract: 1, floorDb: 45 },
  'delta-2': { deltaWeight: 2 },
  'delta-5': { deltaWeight: 5 },
  'no-c0': { dropC0: true },
};

function bank(fe: FrontEnd, band: WordBand, warp: number): MelFilter[] {
  const [lowHz, highHz] = fe.edges[band];
  const lo = mel(lowHz);
  const hi = mel(highHz);
  const points = Array.from({ length: fe.bands + 2 }, (_, i) => Math.min(7999, warp * imel(lo + ((hi - lo) * i) / (fe.bands + 1))));
  const bin = (f: number) => (f * 512) / 16000;
  return Array.from({ length: fe.bands }, (_, m) => {
    const [a, b, c] = [bin(points[m]!), bin(points[m + 1]!), bin(points[m + 2]!)];
    const start = Math.ceil(a);
    const weights = Float32Array.from({ length: Math.floor(c) - start + 1 }, (_, k) => Math.max(0, start + k < b ? (start + k - a) / (b - a) : (c - start - k) / (c - b)));
    return { start, weights };
  });
}

/** The normalized statics per warp of audio and its word segments (word-features.ts, made configurable). */
function frontEnd(fe: FrontEnd, samples: Int16Array, band: WordBand, warps: readonly number[]) {
  const banks = warps.map((w) => bank(fe, band, w));
  const n = samples.length < 400 ? 0 : 1 + Math.floor((samples.length - 400) / 160);
  const powers: Float32Array[][] = warps.map(() => []);
  const energy = new Float32Array(n);
  const { input, out } = frameBuffers();
  for (let f = 0; f < n; f++) {
    frameSpectrum(samples, f * 160, input, out);
    banks.forEach((b, w) => {
      const p = Float32Array.from(b, (filter) => filterPower(out, filter));
      if (w === 0) energy[f] = 10 * Math.log10(p.reduce((s, x) => s + x, 0) + 1e-12);
      powers[w]!.push(p);
    });
  }
  if (fe.subtract > 0) {
    for (const ps of powers) {
      const floor = Float32Array.from(ps[0] ?? [], (_, m) => ps.map((p) => p[m]!).sort((x, y) => x - y)[Math.floor(0.1 * (ps.length - 1))]!);
      for (const p of ps) for (let m = 0; m < p.length; m++) p[m] = Math.max(p[m]! - fe.subtract * floor[m]!, 0.05 * floor[m]!);
    }
  }
  const dct = Array.from({ length: fe.cepstra }, (_, k) => Float32Array.from({ length: fe.bands }, (_, m) => Math.cos((Math.PI * k * (m + 0.5)) / fe.bands)));
  const lift = Array.from({ length: fe.cepstra }, (_, k) => (fe.lifter ? 1 + (fe.lifter / 2) * Math.sin((Math.PI * k) / fe.lifter) : 1));
  const cepstra = (power: Float32Array[], a: number, b: number) => {
    let loudest = 0;
    for (let f = a; f < b; f++) for (const v of power[f]!) loudest = Math.max(loudest, v);
    const floor = loudest * 10 ** (-fe.floorDb / 10) + 1e-12;
    return power.slice(a, b).map((p) => {
      const logMel = Float32Array.from(p, (v) => Math.log(v + floor));
      const c = Float32Array.from(dct, (row, k) => lift[k]! * row.reduce((s, w, m) => s + w * logMel[m]!, 0));
      return fe.dropC0 ? c.subarray(1) : c;
    });
  };
  return { segments: wordSegments(energy), statics: (a: number, b: number) => powers.map((p) => normalizeWord(cepstra(p, a, b))) };
}

/** A template: the longest stretch and those within 0.3 s of it (vocabulary.ts wordStatics). */
function template(fe: FrontEnd, audio: Int16Array, band: WordBand): Float32Array[] | undefined {
  const { segments, statics } = frontEnd(fe, audio, band, [1]);
  if (!segments.length) return undefined;
  const longest = segments.reduce((l, s) => (s[1] - s[0] > l[1] - l[0] ? s : l));
  const near = segments.filter(([a, b]) => b >= longest[0] - 0.3 * WORD_FPS && a <= longest[1] + 0.3 * WORD_FPS);
  return statics(near[0]![0], near.at(-1)![1])[0];
}

const audioDir = recordingsDir() ?? '(no shared/audio folder above the repository)';
const speechDir = join(audioDir, 'ar-speech-commands');
if (!existsSync(speechDir)) {
  console.log(`no recordings in ${speechDir}: set HIWAR_AUDIO_DIR`);
  process.exit(0);
}
const clips = loadClips(speechDir);
const words = [...new Set(Object.values(KEYWORDS))];
const noises = await Promise.all(loadNoises(join(audioDir, 'noise')).map((n) => resample(benchHalf(n), 16000, 8000)));
// The audio every variant hears: the recordings, through the clean line (templates) and the bench's noisy line (queries), and the voices.
const cleanLine = await Promise.all(clips.map((c) => phoneLine(c.samples)));
const noisyLine = await Promise.all(clips.map((c, k) => phoneLine(c.samples, noises[k % noises.length], 7919 * k)));
const voiced: { word: string; audio: Int16Array; line: Int16Array }[] = [];
for (const v of builtInVoices('')) {
  for (const w of words) {
    const r = await voiceText(w, v.espeak);
    const s16 = new Int16Array(Math.round(r.samples.length * (16000 / r.sampleRate)) + 9600);
    s16.set(await resample(r.samples, r.sampleRate, 16000), 4800);
    voiced.push({ word: w, audio: s16, line: await phoneLine(s16) });
  }
}

const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(VARIANTS);
console.log(`templates alone, nearest word, no threshold, leave-one-speaker-out; right of ${clips.length} (load ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
console.log(`${'variant'.padEnd(22)} 16 kHz  phone+noise 20 dB  phone clean  CPU s`);
for (const name of names) {
  const fe = { ...BASE, ...VARIANTS[name] };
  const c0 = cpuUsage();
  const tpl: { word: string; source: string; band: WordBand; feats: Float32Array[] }[] = [];
  const add = (word: string, source: string, band: WordBand, audio: Int16Array) => {
    const s = template(fe, audio, band);
    if (s) tpl.push({ word, source, band, feats: withDeltas(s, fe.deltaWeight) });
  };
  clips.forEach((c, i) => {
    add(c.word, c.speaker, 'wide', c.samples);
    add(c.word, c.speaker, 'phone', c.samples);
    add(c.word, c.speaker, 'phone', cleanLine[i]!);
  });
  for (const v of voiced) {
    add(v.word, 'espeak', 'wide', v.audio);
    add(v.word, 'espeak', 'phone', v.audio);
    add(v.word, 'espeak', 'phone', v.line);
  }
  const right = [0, 0, 0];
  clips.forEach((c, i) => {
    const heard: [Int16Array, WordBand][] = [[c.samples, 'wide'], [noisyLine[i]!, 'phone'], [cleanLine[i]!, 'phone']];
    heard.forEach(([audio, band], h) => {
      const { segments, statics } = frontEnd(fe, audio, band, VOCABULARY_DEFAULTS.warps);
      const [a, b] = segments.length ? [segments[0]![0], segments.at(-1)![1]] : [0, 1];
      const qs = statics(a, b).map((s) => withDeltas(s, fe.deltaWeight));
      let best: [string, number] = ['', Number.POSITIVE_INFINITY];
      for (const t of tpl) {
        if (t.band !== band || t.source === c.speaker) continue;
        for (const q of qs) {
          const r = q.length / t.feats.length;
          if (r > VOCABULARY_DEFAULTS.maxLengthRatio || r < 1 / VOCABULARY_DEFAULTS.maxLengthRatio) continue;
          const d = symmetricDtw(q, t.feats);
          if (d < best[1]) best = [t.word, d];
        }
      }
      if (best[0] === c.word) right[h]!++;
    });
  });
  const cpu = cpuUsage(c0);
  console.log(`${name.padEnd(22)} ${String(right[0]).padStart(6)}  ${String(right[1]).padStart(17)}  ${String(right[2]).padStart(11)}  ${((cpu.user + cpu.system) / 1e6).toFixed(0)}`);
}
