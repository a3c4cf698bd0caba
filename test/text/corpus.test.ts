import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeForSpeech } from '../../src/text/normalize.ts';
import { CORPUS } from './corpus.ts';

const all = Object.values(CORPUS).flat();
test('the corpus has at least 150 agent sentences', () => assert.ok(all.length >= 150, `${all.length} sentences`));

for (const [group, cases] of Object.entries(CORPUS)) {
  for (const [input, reading] of cases) {
    test(`${group}: ${input}`, () => {
      const accepted = Array.isArray(reading) ? reading : [reading];
      const said = normalizeForSpeech(input);
      assert.ok(accepted.includes(said), `said:     ${said}\naccepted: ${accepted.join('\n          ')}`);
    });
  }
}
