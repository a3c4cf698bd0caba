/**
 * Trials of the spoken-word bench (bench/recognizer-words.ts) with one thing changed: more
 * templates made of the training speakers (through a noisy phone line, faster and slower) or of
 * more espeak-ng voices, or the classifier's training set augmented differently. Each trial is
 * leave-one-speaker-out as the bench is (a fold's extra templates and training never hold the
 * held-out speaker: they carry the speaker's name, and the fold leaves that name out).
 * Usage: npm run bench -- recognizer-trials <trial> [--known]   (--known: the 13
 * words only, no held-out words: two trainings fewer per held-out word)
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resample } from '../src/audio/resample.ts';
import { voiceText } from '../src/sandbox/engines/espeak.ts';
import { VOCABULARY_DEFAULTS, templatesOf, type WordTemplate } from '../src/sandbox/engines/vocabulary.ts';
import { ESPEAK_VARIANTS, faster } from '../scripts/word-data.ts';
import { recordingsDir } from '../test/helpers/recordings.ts';
import { weightSweep, type WordBenchRow } from './recognizer-choice.ts';
import { phoneLine, wordBench, type Clip, type WordBenchOptions } from './recognizer-words.ts';

/** Each recording through a phone line with the training half of the noise, at 15–25 dB: phone-band templates of a noisy line. */
async function noisyPhone(clips: Clip[], _words: string[], noises: Int16Array[]): Promise<WordTemplate[]> {
  const at8k = await Promise.all(noises.map((n) => resample(n, 16000, 8000)));
  const out: WordTemplate[] = [];
  for (const [i, c] of clips.entries()) {
    const heard = await phoneLine(c.samples, at8k[i % at8k.length], 4099 * i, 15 + (i % 3) * 5);
    out.push(...templatesOf(c.word, c.speaker, heard).filter((t) => t.band === 'phone'));
  }
  return out;
}

/** Each recording played 8 % slower and faster (as a tape: pitch and formants move with it). */
async function speeds(clips: Clip[]): Promise<WordTemplate[]> {
  const out: WordTemplate[] = [];
  for (const c of clips) {
    for (const s of [0.92, 1.08]) {
      const audio = faster(c.samples, s);
      out.push(...templatesOf(c.word, c.speaker, audio, await phoneLine(audio)));
    }
  }
  return out;
}

/** The words voiced by espeak-ng variants (m1–m7, f1–f5, pitch 65, 135 words a minute), each a source of its own. */
async function espeakVariants(_clips: Clip[], words: string[]): Promise<WordTemplate[]> {
  const out: WordTemplate[] = [];
  for (const v of ESPEAK_VARIANTS.filter((v) => v.wpm === 135 && v.pitch === 65 && v.name !== 'ar')) {
    for (const w of words) {
      const r = await voiceText(w, v);
      const s16 = new Int16Array(Math.round(r.samples.length * (16000 / r.sampleRate)) + 9600);
      s16.set(await resample(r.samples, r.sampleRate, 16000), 4800);
      out.push(...templatesOf(w, `espeak:${v.name}/${v.pitch}`, s16, await phoneLine(s16)));
    }
  }
  return out;
}

const TRIALS: Record<string, WordBenchOptions> = {
  shipped: {},
  'noisy-phone-templates': { extraTemplates: noisyPhone },
  'speed-templates': { extraTemplates: speeds },
  'espeak-templates': { extraTemplates: espeakVariants },
  // The classifier's training set, both bands: each recording heard once only (no augmentation), or
  // 48 ways (the phone band's since the fourth round; the whole band's stays at 24).
  'no-augmentation': { data: { perClip: 1 } },
  'more-versions': { data: { perClip: 48 } },
  // The classifier with twice the hidden units (64), both bands: its "no word" class decides the sureness.
  'hidden-64': { mlp: { hidden: 64 } },
};

const [name, ...flags] = process.argv.slice(2);
const trial = name ? TRIALS[name] : undefined;
if (!trial) {
  console.error(`usage: npm run bench -- recognizer-trials <${Object.keys(TRIALS).join('|')}> [--known]`);
  process.exit(2);
}
const audioDir = recordingsDir() ?? '(no shared/audio folder above the repository)';
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(`trial ${name} (load ${load()})`);
const r = await wordBench(join(audioDir, 'ar-speech-commands'), process.env.HIWAR_NOISE_DIR ?? join(audioDir, 'noise'), { ...trial, heldOut: !flags.includes('--known'), casesFile: join(fileURLToPath(new URL('../.tmp/', import.meta.url)), `word-cases-${name}.json`) });
const pct = (x: WordBenchRow) => `${((100 * x.right) / x.total).toFixed(1)}% (${x.right}/${x.total})`;
const print = (rows: WordBenchRow[]) => rows.forEach((x) => console.log(`  ${x.condition.padEnd(44)} ${pct(x)}  said nothing ${x.silent}`));
console.log('shipped settings');
print(r.rows);
console.log('weights and thresholds chosen per fold on the other five');
console.log(`  ${r.choices.map((c) => `${c.fold}: ${c.settings.weight.wide}/${c.settings.weight.phone} at ${c.settings.threshold.wide}/${c.settings.threshold.phone}`).join(', ')}`);
print(r.nestedRows);
console.log('weights chosen per fold, shipped thresholds');
print(r.weightRows);
console.log('threshold (both bands): rows in order');
for (const c of r.curve) console.log(`  ${c.threshold.toFixed(2)}  ${c.rows.map(pct).join('  ')}`);
console.log('no threshold, per classifier weight (0: templates alone, 1: classifier alone)');
for (const w of weightSweep(r.cases, [0, 0.05, 0.1, 0.2, 0.3, 0.5, 1], VOCABULARY_DEFAULTS.temperature)) console.log(`  ${w.weight.toFixed(2)}  ${w.rows.map(pct).join('  ')}`);
console.log(`cost ${r.cpuUsPerS.toFixed(0)} µs CPU per s of audio; ${r.trainS.toFixed(0)} s training (load ${load()})`);
