import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeForSpeech } from '../../src/text/normalize.ts';
import { chunkText } from '../../src/text/chunker.ts';
import { CORPUS } from './corpus.ts';
import { LONG_REPLIES } from './long-replies.ts';

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

// Class 9: a long reply without punctuation is cut by length; each chunk is normalized alone,
// and together the chunks must read exactly as the whole reply does.
for (const [text] of LONG_REPLIES) {
  test(`9. chunk boundaries that cut meaning: ${text.slice(0, 40)}…`, () => {
    const whole = normalizeForSpeech(text);
    for (let max = 20; max <= 90; max++) {
      const chunks = chunkText(text, { maxChars: max });
      assert.equal(chunks.map(normalizeForSpeech).join(' '), whole, `max ${max}: ${JSON.stringify(chunks)}`);
    }
  });
}
