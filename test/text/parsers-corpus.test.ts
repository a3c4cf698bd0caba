// The parsers against the hand-written corpus of caller utterances (test/fixtures/arabic/*.jsonl):
// every case must pass, except those marked `limit` (a documented limit of the parser), which
// must still fail, so a fix shows up here and the mark comes off.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isUnsure, parseAmount, parseDate, parseDigits, parseMoney, parseYesNo } from '../../src/text/index.ts';

interface Case {
  text: string;
  expected: unknown;
  dialect: 'msa' | 'gulf' | 'egyptian' | 'levantine' | 'maghrebi';
  currency?: string;
  now?: string;
  limit?: string;
}

function load(name: string): Case[] {
  const lines = readFileSync(new URL(`../fixtures/arabic/${name}`, import.meta.url), 'utf8').split('\n').filter(Boolean);
  return lines.map((l) => JSON.parse(l)).filter((row) => !row.header);
}

const corpora: [string, (c: Case) => unknown, (c: Case) => unknown][] = [
  ['digits.jsonl', (c) => parseDigits(c.text) ?? null, (c) => c.expected],
  ['yes-no.jsonl', (c) => parseYesNo(c.text) ?? null, (c) => c.expected],
  ['amount.jsonl', (c) => {
    const money = parseMoney(c.text);
    assert.equal(parseAmount(c.text), money?.amount);
    return c.currency ? { amount: money?.amount ?? null, currency: money?.currency } : money?.amount ?? null;
  }, (c) => (c.currency ? { amount: c.expected, currency: c.currency } : c.expected)],
  ['date.jsonl', (c) => {
    const d = parseDate(c.text, { now: new Date(c.now!), timeZone: 'Asia/Riyadh' });
    if (!d) return null;
    const expected = c.expected as { calendar?: string } | null;
    return { date: d.date, ...(d.time ? { time: d.time } : {}), ...(d.partOfDay ? { partOfDay: d.partOfDay } : {}), ...(expected?.calendar ? { calendar: d.calendar } : {}) };
  }, (c) => c.expected],
];

let total = 0;
let passed = 0;
for (const [file, run, expected] of corpora) {
  const cases = load(file);
  test(`${file}: every dialect has cases`, () => {
    const dialects = ['msa', 'gulf', 'egyptian', 'levantine', 'maghrebi'];
    for (const d of dialects) assert.ok(cases.some((c) => c.dialect === d), `${file} has no ${d} case`);
  });
  for (const c of cases) {
    total++;
    test(`${file} [${c.dialect}] ${c.text}`, () => {
      const got = run(c);
      if (c.limit) {
        assert.notDeepEqual(got, expected(c), `marked as a limit (${c.limit}) but now passes: remove the mark`);
        return;
      }
      assert.deepEqual(got, expected(c));
      passed++;
    });
  }
}

test('isUnsure: "I don\'t know" as a woman, several callers and each dialect\'s negation say it (the sources of yes-no.jsonl)', () => {
  for (const said of ['مش متأكدة', 'مو متذكرة', 'احنا مش متأكدين', 'ما عندي فكرة', 'معنديش فكرة', 'ما بعرفش', 'ماعرفتش', 'مانيش متأكد', 'ماني عارف', 'ما أذكر']) {
    assert.equal(isUnsure(said), true, said);
  }
  for (const said of ['متأكدة', 'عارفة الرقم', 'فكرة حلوة']) assert.equal(isUnsure(said), false, said);
});

test('the corpus holds at least 300 utterances', () => assert.ok(total >= 300, `${total} cases`));
test('pass rate', () => {
  console.log(`# corpus: ${passed} of ${total} pass (${((100 * passed) / total).toFixed(1)}%)`);
  assert.ok(passed > 0);
});
