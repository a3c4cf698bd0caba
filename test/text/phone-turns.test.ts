// The phone task's turn does not close on digits that are already a valid mobile when more may
// come: a proper prefix of a valid mobile that is itself valid. Each case is written from the
// national numbering plans in the ITU-T's collection ("National Numbering Plans", one page per
// country, https://www.itu.int/oth/T0202.aspx?parent=T0202) as Wikipedia's "Telephone numbers in
// <country>" articles sum them up: the caller's own mobiles (their length and first digits), and
// the League's calling codes (ITU-T E.164 list of country codes); the one exception, Somalia's
// eight-digit mobiles, is said where it stands. A number said in full closes the
// turn; the digits before its end, which the caller's own plan also reads as a mobile, leave it to
// the caller's pause ('unknown'), never 'complete'.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arabicTurnPolicy, digitsTask, normalizePhone, type PhoneCountry } from '../../src/index.ts';

const policy = arabicTurnPolicy();

/** The policy's decision on `said` while a phone task of `country` waits for the number. */
function decision(country: PhoneCountry, said: string): string {
  const task = digitsTask({ kind: 'phone', country });
  task.start();
  return policy(said, { expect: task.expecting?.() }).decision;
}

interface Case {
  caller: PhoneCountry;
  /** The whole number as said (digits as the transcript writes them). */
  number: string;
  /** Its first digits, which the caller's own plan reads as a whole mobile. */
  prefix: string;
  why: string;
}

const CASES: Case[] = [
  { caller: 'SO', number: '061 512 3456', prefix: '061 512 345', why: 'Somalia (+252): Hormuud mobiles 61 + 7 digits; the first eight are a mobile by libphonenumber\'s Somali ranges (6XX XXXXX), which the plans we read neither confirm nor rule out' },
  { caller: 'SA', number: '+252 61 512 3456', prefix: '+252 61 512 345', why: 'a Somali mobile said internationally: the same eight digits first' },
  { caller: 'KW', number: '966 50 123 4567', prefix: '9665 0123', why: 'Kuwait (+965): 8-digit mobiles 5X, 6X, 9X; Saudi Arabia\'s code 966 said without its +' },
  { caller: 'OM', number: '966 50 123 4567', prefix: '9665 0123', why: 'Oman (+968): 8-digit mobiles 7X, 9X' },
  { caller: 'TN', number: '20 10 1234 5678', prefix: '20 10 12 34', why: 'Tunisia (+216): 8-digit mobiles 2X, 5X, 9X; Egypt\'s code 20' },
  { caller: 'MR', number: '216 20 123 456', prefix: '21 62 01 23', why: 'Mauritania (+222): 8-digit mobiles 2X, 3X, 4X; Tunisia\'s code 216' },
  { caller: 'LY', number: '964 790 123 4567', prefix: '964 790 123', why: 'Libya (+218): mobiles 09[1-6] + 7 digits, dialled without the 0; Iraq\'s code 964' },
  { caller: 'SD', number: '964 790 123 4567', prefix: '964 790 123', why: 'Sudan (+249): mobiles 09X + 7 digits; Iraq\'s code 964' },
  { caller: 'SY', number: '964 790 123 4567', prefix: '964 790 123', why: 'Syria (+963): mobiles 09[3-9] + 7 digits; Iraq\'s code 964' },
];

test('a valid mobile that a longer one begins with waits for the caller\'s pause; the whole number closes the turn', () => {
  for (const c of CASES) {
    // The prefix is itself a mobile of the caller's country (or of the code's): the turn used to close there.
    assert.notEqual(normalizePhone(c.prefix, c.caller), undefined, `${c.caller} ${c.prefix} is a mobile (${c.why})`);
    assert.notEqual(decision(c.caller, c.prefix), 'complete', `${c.caller} ${c.prefix} of ${c.number} (${c.why})`);
    assert.equal(decision(c.caller, c.number), 'complete', `${c.caller} ${c.number}`);
  }
});

test('the same in words: a Somali caller\'s eighth digit, then the ninth', () => {
  assert.equal(decision('SO', 'صفر ستة واحد خمسة واحد اتنين تلاتة أربعة خمسة'), 'unknown');
  assert.equal(decision('SO', 'صفر ستة واحد خمسة واحد اتنين تلاتة أربعة خمسة ستة'), 'complete');
});

test('numbers of one length close the turn on their last digit, as before', () => {
  // Saudi Arabia, the UAE, Egypt, Iraq, Jordan, Qatar: no mobile is the beginning of a longer one.
  for (const [country, number] of [['SA', '050 123 4567'], ['AE', '055 123 4567'], ['EG', '0101 234 5678'], ['IQ', '0790 123 4567'], ['JO', '079 123 4567'], ['QA', '3312 3456'], ['LB', '03 123 456']] as const) {
    assert.equal(decision(country, number), 'complete', `${country} ${number}`);
  }
});

test('the UAE\'s 053 and Saudi Arabia\'s 052 are mobiles', () => {
  // UAE (TDRA): the 5X block is mobile; 053 is Virgin Mobile UAE's (EITC's second brand, 2017).
  assert.equal(normalizePhone('053 123 4567', 'AE'), '+971531234567');
  assert.equal(normalizePhone('+971 53 123 4567'), '+971531234567');
  // Saudi Arabia (CST, National Numbering Plan): every 05X number is mobile, 052 with them.
  assert.equal(normalizePhone('052 123 4567'), '+966521234567');
  assert.equal(normalizePhone('+966 52 123 4567', 'KW'), '+966521234567');
  // Neither plan has mobiles outside 5X: 057 is no UAE mobile.
  assert.equal(normalizePhone('057 123 4567', 'AE'), undefined);
});
