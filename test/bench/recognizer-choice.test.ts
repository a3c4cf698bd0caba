/**
 * The word bench's decisions on stored opinions (bench/recognizer-choice.ts): sureness, and the
 * cases file that bench/recognizer-rules.ts decides again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { decide, loadCases, saveCases, type BenchCase, type Settings } from '../../bench/recognizer-choice.ts';
import { benchRunArgs } from '../helpers/bench.ts';
import { runCommand } from '../helpers/processes.ts';
import { UNKNOWN_CLASS } from '../../src/sandbox/engines/word-model.ts';

// A rhyme of لا in a new voice: the templates find لا near, the classifier calls it no word.
const rhyme: BenchCase = {
  fold: '03',
  condition: 'unknown',
  band: 'wide',
  expected: undefined,
  heard: {
    singles: [{ band: 'wide', classes: ['نعم', 'لا', UNKNOWN_CLASS], probabilities: Float32Array.from([0.1, 0.1, 0.8]), distances: new Map([['نعم', 4.5], ['لا', 4]]), noWord: 7, frames: 40 }],
    joins: [],
  },
};
const at = (threshold: number, sureness?: Settings['sureness']): Settings => ({ weight: { wide: 0.1, phone: 0.2 }, threshold: { wide: threshold, phone: threshold }, temperature: 1, sureness });

test('the bench decides a stored case by the ranking probability, or by the sureness when given', () => {
  assert.deepEqual(decide(rhyme, at(0.5)), ['لا'], 'the templates alone are sure enough');
  const judge = { weight: 0.7, temperature: 1 };
  assert.equal(decide(rhyme, at(0.5, { wide: judge, phone: judge })), undefined, 'the classifier\'s "no word" rejects it');
  assert.deepEqual(decide(rhyme, at(0, { wide: judge, phone: judge })), ['لا'], 'the same word, at no threshold');
});

test('stored cases come back as they were written (probabilities, distances, lengths)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-cases-'));
  try {
    const file = join(dir, 'cases.json');
    saveCases(file, { cases: [rhyme], lengths: [{ word: 'لا', source: '04', band: 'wide', frames: 38 }] });
    const back = loadCases(file);
    const o = back.cases[0]!.heard.singles[0]!;
    assert.ok(o.probabilities instanceof Float32Array);
    assert.deepEqual([...o.probabilities], [...rhyme.heard.singles[0]!.probabilities]);
    assert.deepEqual([...o.distances], [['نعم', 4.5], ['لا', 4]]);
    assert.equal(o.frames, 40);
    assert.deepEqual(back.lengths, [{ word: 'لا', source: '04', band: 'wide', frames: 38 }]);
    for (const threshold of [0, 0.5, 0.9]) assert.deepEqual(decide(back.cases[0]!, at(threshold)), decide(rhyme, at(threshold)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a fresh clone has no stored cases: recognizer-rules says which bench writes them, in one line, instead of a stack trace', async () => {
  assert.throws(() => loadCases(join(tmpdir(), 'hiwar-no-such-cases.json')), /no stored cases at .*hiwar-no-such-cases\.json: `npm run bench -- recognizer` writes them .*HIWAR_AUDIO_DIR/);
  const r = await runCommand(process.execPath, benchRunArgs('recognizer-rules', join(tmpdir(), 'hiwar-no-such-cases.json')), { cwd: process.cwd(), timeoutMs: 60_000 });
  assert.equal(r.code, 1);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^bench recognizer-rules: no stored cases at /);
});
