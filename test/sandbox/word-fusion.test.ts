import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VOCABULARY_DEFAULTS } from '../../src/sandbox/engines/vocabulary.ts';
import { fuseOpinions, perBand, wordsOf, type WordOpinions } from '../../src/sandbox/engines/word-fusion.ts';
import { UNKNOWN_CLASS } from '../../src/sandbox/engines/word-model.ts';

// The classifier leans to نعم, the templates to لا: the weight decides whose opinion wins.
const split: WordOpinions = {
  band: 'wide',
  classes: ['نعم', 'لا', UNKNOWN_CLASS],
  probabilities: Float32Array.from([0.9, 0.05, 0.05]),
  distances: new Map([['نعم', 6], ['لا', 4]]),
  noWord: 8,
};

test('the fused opinion follows the templates at a low classifier weight and the classifier at a high one', () => {
  assert.equal(fuseOpinions(split, 0, 1)?.word, 'لا');
  assert.equal(fuseOpinions(split, 0.1, 1)?.word, 'لا');
  assert.equal(fuseOpinions(split, 1, 1)?.word, 'نعم');
  const s = fuseOpinions(split, 1, 1)!.score;
  assert.ok(Math.abs(s - 0.9) < 1e-6, `the classifier alone gives its own probability: ${s}`);
});

test('a sound far from every template, that the classifier calls no word, gets a low score for its best word', () => {
  const far: WordOpinions = { ...split, probabilities: Float32Array.from([0.1, 0.1, 0.8]), distances: new Map([['نعم', 12], ['لا', 11]]), noWord: 5 };
  const { modelWeight, temperature, surenessWeight, surenessTemperature, minScore } = VOCABULARY_DEFAULTS;
  for (const band of ['wide', 'phone'] as const) {
    const fused = fuseOpinions(far, modelWeight[band], temperature, { weight: surenessWeight[band], temperature: surenessTemperature[band] })!;
    assert.equal(fused.word, 'لا', 'the best word is never "no word"');
    assert.ok(fused.score < minScore[band], `${band}: score ${fused.score}`);
  }
  assert.equal(fuseOpinions({ ...split, distances: new Map() }, 0.3, 1), undefined, 'no template of any word');
});

test('sureness: the word is ranked at one classifier weight, its probability taken at another', () => {
  // Near both words' templates (لا the nearer), but the classifier calls it no word.
  const rhyme: WordOpinions = { ...split, probabilities: Float32Array.from([0.1, 0.1, 0.8]), distances: new Map([['نعم', 4.5], ['لا', 4]]), noWord: 7 };
  const ranked = fuseOpinions(rhyme, 0.1, 1)!;
  const judged = fuseOpinions(rhyme, 0.1, 1, { weight: 0.7, temperature: 1 })!;
  assert.equal(judged.word, ranked.word, 'the same word');
  assert.equal(judged.word, 'لا');
  assert.ok(judged.score < ranked.score - 0.2, `the classifier's "no word" makes it less sure: ${judged.score} against ${ranked.score}`);
  const same = fuseOpinions(rhyme, 0.1, 1, { weight: 0.1, temperature: 1 })!;
  assert.ok(Math.abs(same.score - ranked.score) < 1e-9, 'at the ranking settings, the ranking probability');
});

test('a per-band option: one number sets both bands, an object only the bands it names', () => {
  const defaults = { wide: 0.1, phone: 0.3 };
  assert.deepEqual(perBand(0.5, defaults), { wide: 0.5, phone: 0.5 });
  assert.deepEqual(perBand({ phone: 0.2 }, defaults), { wide: 0.1, phone: 0.2 });
  assert.deepEqual(perBand(undefined, defaults), defaults);
});

test('stretches of speech: each a word alone, unless it and the next are more surely one word together', () => {
  // 'س' and 'تة' are ستة cut in two (close together: the join is tried); 'خمسة' is a word alone.
  const said = ['خمسة', 'س', 'تة', 'خمسة'];
  const alone: Record<string, { word: string; confidence: number }> = { 'خمسة': { word: 'خمسة', confidence: 0.9 }, 'س': { word: 'صفر', confidence: 0.75 } };
  const together: Record<string, { word: string; confidence: number }> = { 'ستة': { word: 'ستة', confidence: 0.95 }, 'خمسةس': { word: 'خمسة', confidence: 0.72 } };
  const single = (i: number) => alone[said[i]!];
  const joined = (i: number) => together[said[i]! + said[i + 1]!];
  assert.deepEqual(wordsOf(said.length, single, joined)?.map((w) => w.word), ['خمسة', 'ستة', 'خمسة']);
  // A join less sure than both words alone is not taken; a stretch that is no word alone or joined leaves the turn unheard.
  const two = (i: number) => [{ word: 'لا', confidence: 0.8 }, { word: 'نعم', confidence: 0.85 }][i];
  assert.deepEqual(wordsOf(2, two, () => ({ word: 'موافق', confidence: 0.79 }))?.map((w) => w.word), ['لا', 'نعم']);
  assert.deepEqual(wordsOf(2, two, () => ({ word: 'موافق', confidence: 0.81 }))?.map((w) => w.word), ['موافق']);
  assert.equal(wordsOf(3, (i) => (i === 1 ? undefined : two(0)), () => undefined), undefined);
  assert.equal(wordsOf(0, two, two), undefined, 'no speech');
});
