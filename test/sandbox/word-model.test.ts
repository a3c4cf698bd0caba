import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UNKNOWN_CLASS, WORD_MODEL, WordNet, packWeights, wordVector } from '../../src/sandbox/engines/word-model.ts';
import { seeded, trainMlp } from '../../scripts/word-mlp.ts';

// Three clusters in 6 dimensions: a stand-in for words, to check training and inference agree.
function clusters(n: number, seed: number): { x: Float32Array[]; y: number[] } {
  const rnd = seeded(seed);
  const centres = [[2, 0, 0, 1, 0, 0], [0, 2, 0, 0, 1, 0], [0, 0, 2, 0, 0, 1]];
  const x: Float32Array[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % 3;
    x.push(Float32Array.from(centres[c]!, (v) => v + (rnd() - 0.5)));
    y.push(c);
  }
  return { x, y };
}

test('a word of any length becomes a vector of one length', () => {
  const word = (frames: number) => Array.from({ length: frames }, (_, f) => Float32Array.from({ length: 13 }, (_, i) => Math.sin(f / 7 + i)));
  const lengths = [5, 19, 20, 57, 140].map((n) => wordVector(word(n)).length);
  assert.deepEqual(new Set(lengths), new Set([WORD_MODEL.slices * 26 + 1]));
  const v = wordVector(word(57));
  assert.ok(Math.abs(v.at(-1)! - Math.log(57 / 50)) < 1e-6, 'the last input is the log length');
});

test('training is seeded and learns; the shipped byte form predicts what it learnt', () => {
  const { x, y } = clusters(300, 1);
  const classes = ['a', 'b', UNKNOWN_CLASS];
  const opts = { hidden: 8, epochs: 40, rate: 1e-2 };
  const once = trainMlp(x, y, classes, opts);
  assert.deepEqual(trainMlp(x, y, classes, opts), once, 'same data and seed, same weights');
  assert.notDeepEqual(trainMlp(x, y, classes, { ...opts, seed: 2 }), once, 'another seed, other weights');
  const net = new WordNet(once);
  const test = clusters(90, 7);
  let right = 0;
  for (const [i, v] of test.x.entries()) {
    const p = net.probabilities(v);
    assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) < 1e-5);
    if (p.indexOf(Math.max(...p)) === test.y[i]) right++;
  }
  assert.ok(right >= 85, `${right}/90 right`);
});

test('weights survive the byte form within one step per row; a mismatched network is refused', () => {
  const w = Float32Array.from({ length: 40 }, (_, i) => Math.sin(i) * (1 + (i % 10)));
  const { bytes, scales } = packWeights(w, 10);
  const q = new Int8Array(Buffer.from(bytes, 'base64'));
  for (let i = 0; i < w.length; i++) assert.ok(Math.abs(q[i]! * scales[Math.floor(i / 10)]! - w[i]!) <= scales[Math.floor(i / 10)]! / 2 + 1e-6);
  const stored = trainMlp(clusters(30, 3).x, clusters(30, 3).y, ['a', 'b', 'c'], { hidden: 4, epochs: 1 });
  assert.throws(() => new WordNet({ ...stored, hidden: 5 }), /do not match/);
  assert.throws(() => new WordNet(stored).probabilities(new Float32Array(3)), /3 inputs, expected 6/);
});
