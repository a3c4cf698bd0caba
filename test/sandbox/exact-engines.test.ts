/**
 * The recognizer's warp (engines/dtw.ts), the pitch (engines/pitch.ts) and the vocabulary's
 * warp (engines/vocabulary.ts `symmetricDtw`, which now gives up early on a template that cannot
 * be the nearest) were rewritten for speed: they must give what the first versions gave, to the bit, on the sandbox's own voices and
 * on real recordings, clean and as heard through noise, closed and open-ended. The first versions
 * are kept in reference-engines.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { resample } from '../../src/audio/resample.ts';
import { decodeWav } from '../../src/audio/wav.ts';
import { dtw, frameMatrix } from '../../src/sandbox/engines/dtw.ts';
import { voiceText, type EspeakVoice } from '../../src/sandbox/engines/espeak.ts';
import { cepstra, melPower, noiseFloor, speechBounds } from '../../src/sandbox/engines/features.ts';
import { medianPitch } from '../../src/sandbox/engines/pitch.ts';
import { builtInVocabulary } from '../../src/sandbox/engines/builtin-vocabulary.ts';
import { symmetricDtw, VOCABULARY_DEFAULTS } from '../../src/sandbox/engines/vocabulary.ts';
import { VOCABULARY_DATA } from '../../src/sandbox/engines/vocabulary-data.ts';
import { unpackVocabulary } from '../../src/sandbox/engines/vocabulary-store.ts';
import { normalizeWord, cepstraOf, warpedFrames, withDeltas, wordSegments, type WordBand } from '../../src/sandbox/engines/word-features.ts';
import { mulaw } from '../../src/audio/g711.ts';
import { recordingsDir } from '../helpers/recordings.ts';
import { referenceDtw, referenceMedianPitch, referenceSymmetricDtw } from './reference-engines.ts';

const VOICES: EspeakVoice[] = [
  { name: 'ar', pitch: 40, wpm: 185 },
  { name: 'ar', pitch: 70, wpm: 150 },
];
const PHRASES = ['أريد معرفة رصيد حسابي', 'نعم', 'متى يفتح الفرع غدا', 'شكرا جزيلا لك، مع السلامة'];
const SPEECH = join(recordingsDir() ?? '.', 'ar-speech-commands');
const noRecordings = existsSync(SPEECH) ? false : `no recordings of real speech in ${SPEECH} (set HIWAR_AUDIO_DIR)`;

/** The sandbox's voices saying the phrases (voiced once for the file's tests). */
let lines: Promise<{ text: string; samples: Int16Array; sampleRate: number }[]> | undefined;
const voiced = () =>
  (lines ??= (async () => {
    const out = [];
    for (const voice of VOICES) for (const text of PHRASES) out.push({ text, ...(await voiceText(text, voice)) });
    return out;
  })());

/** Recordings of real speech (16 kHz WAV files), the first `count`. */
function recordings(count: number): Int16Array[] {
  return readdirSync(SPEECH)
    .filter((f) => f.endsWith('.wav'))
    .sort()
    .slice(0, count)
    .map((f) => decodeWav(readFileSync(join(SPEECH, f))).samples);
}

/** Clean cepstra of the speech in `pcm`, and the same heard through a noise floor (as the recognizer recomputes a template). */
function features(pcm: Int16Array): { clean: Float32Array[]; noisy: Float32Array[] } {
  const { power, energy } = melPower(pcm);
  const [a, b] = speechBounds(energy);
  const speech = power.slice(a, b);
  const noise = noiseFloor(power).map((v) => v + 1e-3);
  return { clean: cepstra(speech), noisy: cepstra(speech, noise, 0.7) };
}

/** Each query against each template; returns how many warps both found. */
function assertSameWarps(queries: Float32Array[][], templates: Float32Array[][]): number {
  let compared = 0;
  for (const query of queries) {
    for (const template of templates) {
      for (const openEnd of [false, true]) {
        const expected = referenceDtw(query, template, openEnd);
        const got = dtw(frameMatrix(query), frameMatrix(template), openEnd);
        if (!expected) {
          assert.equal(got, undefined);
          continue;
        }
        assert.ok(got, 'a warp the first version found');
        assert.ok(Object.is(got.cost, expected.cost), `cost ${got.cost} vs ${expected.cost}`);
        assert.equal(got.templateEnd, expected.templateEnd);
        assert.deepEqual(got.queryToTemplate, expected.queryToTemplate);
        compared++;
      }
    }
  }
  return compared;
}

test("the warp: the same costs, ends and paths as the first version, on the sandbox's voices (clean, through noise, reversed, closed and open-ended)", async () => {
  const feats = await Promise.all((await voiced()).map(async (v) => features(await resample(v.samples, v.sampleRate, 16000))));
  const clean = feats.map((f) => f.clean);
  const templates = [...clean, ...feats.map((f) => f.noisy), ...feats.map((f) => [...f.clean].reverse())];
  // Some pairs are outside the band (too different in length) and give no warp, in both;
  // open-ended, every pair does.
  assert.ok(assertSameWarps(clean, templates) > clean.length * templates.length, 'most pairs warp');
});

test('the warp: the same on real recordings', { skip: noRecordings }, () => {
  const feats = recordings(8).map(features);
  const sets = [...feats.map((f) => f.clean), ...feats.map((f) => f.noisy)];
  assert.ok(assertSameWarps(sets, sets) > sets.length * sets.length);
});

test('frameMatrix lays frames end to end, reversed on request', () => {
  const frames = [Float32Array.of(1, 2), Float32Array.of(3, 4), Float32Array.of(5, 6)];
  assert.deepEqual(frameMatrix(frames), { data: Float32Array.of(1, 2, 3, 4, 5, 6), count: 3, dim: 2 });
  assert.deepEqual(frameMatrix(frames, true).data, Float32Array.of(5, 6, 3, 4, 1, 2));
  assert.deepEqual(frameMatrix([]), { data: new Float32Array(0), count: 0, dim: 0 });
});

test("the pitch: the same median as the first version, on the sandbox's voices at 8 and 16 kHz, and one line at 22.05 and 48", async () => {
  let found = 0;
  for (const v of await voiced()) {
    for (const rate of [8000, 16000, ...(v.text === 'نعم' ? [v.sampleRate, 48000] : [])]) {
      const pcm = await resample(v.samples, v.sampleRate, rate);
      const expected = referenceMedianPitch(pcm, rate);
      assert.equal(medianPitch(pcm, rate), expected, `${v.text} at ${rate} Hz`);
      if (expected !== undefined) found++;
    }
  }
  assert.ok(found >= 10, `most lines have a pitch (${found})`);
});

test('the pitch: the same on real recordings, and on silence and noise (none)', { skip: noRecordings }, async () => {
  let found = 0;
  for (const pcm of recordings(12)) {
    for (const rate of [8000, 16000]) {
      const at = await resample(pcm, 16000, rate);
      const expected = referenceMedianPitch(at, rate);
      assert.equal(medianPitch(at, rate), expected);
      if (expected !== undefined) found++;
    }
  }
  assert.ok(found >= 6, `most recordings have a pitch (${found})`);
  assert.equal(medianPitch(new Int16Array(16000), 16000), undefined);
  let seed = 7;
  const noise = Int16Array.from({ length: 16000 }, () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 20000) - 10000);
  assert.equal(medianPitch(noise, 16000), referenceMedianPitch(noise, 16000));
});

/** The words the vocabulary hears, as its `scores` gets them: per stretch of speech, the normalized statics at each of `warps`. */
function stretches(pcm16k: Int16Array, band: WordBand, warps = [1, 0.92]): Float32Array[][][] {
  // Two warps, not the search's seven: the same matching a seventh of the reference's CPU.
  const { powers, energy } = warpedFrames(pcm16k, band, warps);
  return wordSegments(energy).map(([a, b]) => powers.map((power) => normalizeWord(cepstraOf(power, a, b))));
}

/** `Vocabulary.scores` as first written: every template of the band warped to its end by the first version. */
const shipped = new Map<WordBand, { word: string; feats: Float32Array[] }[]>();
function referenceScores(warped: Float32Array[][], band: WordBand): Map<string, number> {
  let templates = shipped.get(band);
  if (!templates) shipped.set(band, (templates = unpackVocabulary(VOCABULARY_DATA).filter((t) => t.band === band).map((t) => ({ word: t.word, feats: withDeltas(t.statics) }))));
  const best = new Map<string, number>();
  for (const t of templates) {
    for (const q of warped.map((statics) => withDeltas(statics))) {
      const r = q.length / t.feats.length;
      const d = r > VOCABULARY_DEFAULTS.maxLengthRatio || r < 1 / VOCABULARY_DEFAULTS.maxLengthRatio ? Number.POSITIVE_INFINITY : referenceSymmetricDtw(q, t.feats);
      if (d < (best.get(t.word) ?? Number.POSITIVE_INFINITY)) best.set(t.word, d);
    }
  }
  return best;
}

test("the vocabulary's warp: the same nearest distance per word as warping every template to its end, on the sandbox's voices (whole band and phone line)", async () => {
  const vocabulary = builtInVocabulary();
  let compared = 0;
  let givenUp = 0;
  for (const v of (await voiced()).slice(0, PHRASES.length)) {
    const wide = await resample(v.samples, v.sampleRate, 16000);
    const phone = await resample(mulaw.decode(mulaw.encode(await resample(v.samples, v.sampleRate, 8000))), 8000, 16000);
    for (const [band, pcm] of [['wide', wide], ['phone', phone]] as const) {
      for (const warped of stretches(pcm, band)) {
        const expected = referenceScores(warped, band);
        const got = vocabulary.scores(warped, band);
        assert.deepEqual([...got].sort(), [...expected].sort(), `${v.text} (${band})`);
        compared++;
        // The early end is taken: a template's warp given up at its word's nearest so far.
        const q = withDeltas(warped[0]!);
        for (const t of unpackVocabulary(VOCABULARY_DATA).filter((x) => x.band === band).slice(0, 12)) {
          const feats = withDeltas(t.statics);
          const full = referenceSymmetricDtw(q, feats);
          assert.ok(Object.is(symmetricDtw(q, feats), full));
          const bound = expected.get(t.word) ?? Number.POSITIVE_INFINITY;
          const early = symmetricDtw(q, feats, bound);
          if (full < bound) assert.ok(Object.is(early, full));
          else assert.ok(early >= bound);
          if (early === Number.POSITIVE_INFINITY && Number.isFinite(full)) givenUp++;
        }
      }
    }
  }
  assert.ok(compared >= 8, `stretches compared: ${compared}`);
  assert.ok(givenUp > 0, 'some warps end early');
});

test("the vocabulary's warp: the same on real recordings", { skip: noRecordings }, () => {
  const vocabulary = builtInVocabulary();
  let compared = 0;
  for (const pcm of recordings(6)) {
    for (const band of ['wide', 'phone'] as const) {
      for (const warped of stretches(pcm, band)) {
        assert.deepEqual([...vocabulary.scores(warped, band)].sort(), [...referenceScores(warped, band)].sort());
        compared++;
      }
    }
  }
  assert.ok(compared >= 8, `stretches compared: ${compared}`);
});
