/**
 * Where the spoken-word vocabulary goes wrong on real people: leave-one-speaker-out over the
 * recordings, the templates alone (nearest word by DTW at the best of the warps, no threshold,
 * no classifier: nothing to train, so it runs in minutes), at 16 kHz and through the bench's
 * phone line with and without line noise. Prints, per band, the right words per held-out
 * speaker, how many stretches of speech each clip was cut into (the recognizer says nothing for a
 * word the endpointing splits in two or misses: those clips are named), and every confusion with its three nearest words.
 * Usage: npm run bench -- recognizer-errors   (the recordings: HIWAR_AUDIO_DIR, as bench/recognizer.ts)
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { resample } from '../src/audio/resample.ts';
import { VOCABULARY_DEFAULTS, Vocabulary } from '../src/sandbox/engines/vocabulary.ts';
import { cepstraOf, normalizeWord, warpedFrames, wordSegments, type WordBand } from '../src/sandbox/engines/word-features.ts';
import { benchHalf, loadNoises } from '../scripts/word-data.ts';
import { espeakTemplates, humanTemplates, KEYWORDS, loadClips, phoneLine } from './recognizer-words.ts';
import { recordingsDir } from '../test/helpers/recordings.ts';

// HIWAR_AUDIO_DIR, else a shared/audio folder above the repository (also from a git worktree).
const audioDir = recordingsDir() ?? '(no shared/audio folder above the repository)';
const speechDir = join(audioDir, 'ar-speech-commands');
if (!existsSync(speechDir)) {
  console.log(`no recordings in ${speechDir}: set HIWAR_AUDIO_DIR (docs/sandbox.md#real-recordings-for-the-recognizer-bench)`);
  process.exit(0);
}
const noiseDir = process.env.HIWAR_NOISE_DIR ?? join(audioDir, 'noise');
const clips = loadClips(speechDir);
const words = [...new Set(Object.values(KEYWORDS))];
const noises = existsSync(noiseDir) ? await Promise.all(loadNoises(noiseDir).map((n) => resample(benchHalf(n), 16000, 8000))) : [];
const human = await humanTemplates(clips);
const voiced = await espeakTemplates(words);
console.log(`load ${loadavg().map((l) => l.toFixed(1)).join(' ')}; templates alone, nearest word, no threshold`);

interface Miss { speaker: string; word: string; ranked: [string, number][] }
const conditions = ['16 kHz', 'phone line, noise 20 dB', 'phone line, no noise'] as const;
const tally = new Map<string, { right: Map<string, number>; stretches: Map<number, number>; cut: string[]; misses: Miss[] }>(
  conditions.map((c) => [c, { right: new Map(), stretches: new Map(), cut: [], misses: [] }]),
);
let k = 0;
for (const speaker of [...new Set(clips.map((c) => c.speaker))]) {
  // Limits given (none): no calibration, which only the decision's "no word" would need.
  const vocab = new Vocabulary([...human.filter((t) => t.source !== speaker), ...voiced], {}, {});
  for (const c of clips.filter((c) => c.speaker === speaker)) {
    // The same line noise, at the same offsets, as bench/recognizer-words.ts.
    const noisy = await phoneLine(c.samples, noises[k % Math.max(1, noises.length)], 7919 * k++);
    const heard: [(typeof conditions)[number], Int16Array, WordBand][] = [
      ['16 kHz', c.samples, 'wide'],
      ['phone line, noise 20 dB', noisy, 'phone'],
      ['phone line, no noise', await phoneLine(c.samples), 'phone'],
    ];
    for (const [condition, audio, band] of heard) {
      const t = tally.get(condition)!;
      const { powers, energy } = warpedFrames(audio, band, VOCABULARY_DEFAULTS.warps);
      const segments = wordSegments(energy);
      t.stretches.set(segments.length, (t.stretches.get(segments.length) ?? 0) + 1);
      if (segments.length !== 1) t.cut.push(`${speaker} ${c.word}: ${segments.length}`);
      // The clip's speech from its first stretch to its last, as one word: errors of the match alone.
      const [a, b] = segments.length ? [segments[0]![0], segments.at(-1)![1]] : [0, energy.length];
      const ranked = [...vocab.scores(powers.map((p) => normalizeWord(cepstraOf(p, a, b))), band)].sort((x, y) => x[1] - y[1]);
      if (ranked[0]?.[0] === c.word) t.right.set(speaker, (t.right.get(speaker) ?? 0) + 1);
      else t.misses.push({ speaker, word: c.word, ranked });
    }
  }
}
for (const [condition, t] of tally) {
  const right = [...t.right.values()].reduce((s, v) => s + v, 0);
  const perSpeaker = [...new Set(clips.map((c) => c.speaker))].map((s) => `${s}: ${t.right.get(s) ?? 0}`).join(', ');
  console.log(`\n${condition}: ${right}/${clips.length} right (${perSpeaker}); stretches per clip ${[...t.stretches].map(([n, c]) => `${n}: ${c}`).join(', ')}${t.cut.length ? ` (not one: ${t.cut.join(', ')})` : ''}`);
  for (const m of t.misses) console.log(`  ${m.speaker} ${m.word} -> ${m.ranked.slice(0, 3).map(([w, d]) => `${w} ${d.toFixed(1)}`).join(', ')}`);
}
