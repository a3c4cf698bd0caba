// IBANs of every Arab League country that has one. The examples are the ones the SWIFT IBAN
// Registry publishes for each country (ISO 13616; registry releases 95–100, the country pages'
// "IBAN electronic format example"), and for Algeria, the Comoros and Morocco, which are not in
// the registry, the examples of the experimental lists (iban.com "IBAN experimental list", the
// Nordea list of IBAN countries). The lengths and the bank-code letters are the registry's. How a
// caller says one is written here by hand: each digit by its name, the letters of a bank code by
// their Arabic names as letters are read out in Arabic (إن بي آي كيو for NBIQ).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IBAN_LENGTHS, TASK_DEFAULTS, digitsTask, isValidIban, type CollectTask, type TaskInput, type TaskStep } from '../../src/index.ts';
import { IBAN_FORMATS } from '../../src/text/iban-formats.ts';
import { parseIbanSaid } from '../../src/text/parse-iban.ts';
import { arabicTurnPolicy } from '../../src/pipeline/turn-policy.ts';

const REGISTRY: Record<string, { example: string; length: number }> = {
  AE: { example: 'AE070331234567890123456', length: 23 },
  BH: { example: 'BH67BMAG00001299123456', length: 22 },
  DJ: { example: 'DJ2100010000000154000100186', length: 27 },
  EG: { example: 'EG380019000500000000263180002', length: 29 },
  IQ: { example: 'IQ98NBIQ850123456789012', length: 23 },
  JO: { example: 'JO94CBJO0010000000000131000302', length: 30 },
  KW: { example: 'KW81CBKU0000000000001234560101', length: 30 },
  LB: { example: 'LB62099900000001001901229114', length: 28 },
  LY: { example: 'LY83002048000020100120361', length: 25 },
  MR: { example: 'MR1300020001010000123456753', length: 27 },
  OM: { example: 'OM810180000001299123456', length: 23 },
  PS: { example: 'PS92PALS000000000400123456702', length: 29 },
  QA: { example: 'QA58DOHB00001234567890ABCDEFG', length: 29 },
  SA: { example: 'SA0380000000608010167519', length: 24 },
  SD: { example: 'SD2129010501234001', length: 18 },
  SO: { example: 'SO211000001001000100141', length: 23 },
  TN: { example: 'TN5910006035183598478831', length: 24 },
  YE: { example: 'YE15CBYE0001018861234567891234', length: 30 },
};
const EXPERIMENTAL: Record<string, { example: string; length: number }> = {
  DZ: { example: 'DZ580002100001113000000570', length: 26 },
  KM: { example: 'KM4600005000010010904400137', length: 27 },
  MA: { example: 'MA64011519000001205000534921', length: 28 },
};

/** Digits as Gulf and Levantine callers name them, one by one. */
const DIGIT = ['صفر', 'واحد', 'اتنين', 'تلاتة', 'أربعة', 'خمسة', 'ستة', 'سبعة', 'تمانية', 'تسعة'];
/** Latin letters by the names Arabic speakers give them. */
const LETTER: Record<string, string> = {
  A: 'إيه', B: 'بي', C: 'سي', D: 'دي', E: 'إي', F: 'إف', G: 'جي', H: 'إتش', I: 'آي', J: 'جيه', K: 'كيه', L: 'إل', M: 'إم',
  N: 'إن', O: 'أو', P: 'بي', Q: 'كيو', R: 'آر', S: 'إس', T: 'تي', U: 'يو', V: 'في', W: 'دبليو', X: 'إكس', Y: 'واي', Z: 'زد',
};
/** Said character by character, in groups of four with a pause (a comma) between them. */
const spoken = (chars: string) => (chars.match(/.{1,4}/g) ?? []).map((g) => [...g].map((c) => (/\d/.test(c) ? DIGIT[Number(c)] : LETTER[c])).join(' ')).join('، ');
const INDIC = '٠١٢٣٤٥٦٧٨٩';
const indic = (chars: string) => chars.replace(/\d/g, (d) => INDIC[Number(d)]!);

const say = (text: string): TaskInput => ({ kind: 'speech', text });
function run<T>(task: CollectTask<T>, inputs: TaskInput[]): TaskStep<T>[] {
  const steps = [task.start()];
  for (const input of inputs) steps.push(task.next(input));
  return steps;
}

/** One changed character in the BBAN: a mod-97 check catches every single substitution. */
const broken = (iban: string) => `${iban.slice(0, -1)}${iban.at(-1) === '1' ? '2' : '1'}`;

test('every League country in the SWIFT IBAN Registry, and the three experimental ones, with the registry length', () => {
  for (const [country, { length }] of Object.entries({ ...REGISTRY, ...EXPERIMENTAL })) {
    assert.equal(IBAN_LENGTHS[country], length, country);
    assert.equal(IBAN_FORMATS[country]!.status, country in REGISTRY ? 'registry' : 'experimental', country);
  }
  // Syria has no IBAN in the registry or the experimental lists.
  assert.equal(IBAN_LENGTHS.SY, undefined);
});

test('each example passes ISO 13616 mod 97 and its length; a changed last character or a character dropped fails', () => {
  for (const [country, { example }] of Object.entries({ ...REGISTRY, ...EXPERIMENTAL })) {
    assert.equal(isValidIban(example), true, `${country} ${example}`);
    assert.equal(isValidIban(broken(example)), false, `${country} changed`);
    assert.equal(isValidIban(example.slice(0, -1)), false, `${country} one short`);
  }
  // A letter where the registry's format has digits (Iraq's account number is 12!n) fails even with its check right.
  assert.equal(isValidIban('IQ98NBIQ85012345678901A'), false);
});

test('digitsTask: each country\'s IBAN said in words without its letters, under its country, the bank code by letter names', () => {
  for (const [country, { example }] of Object.entries({ ...REGISTRY, ...EXPERIMENTAL })) {
    const steps = run(digitsTask({ kind: 'iban', country: country as 'SA' }), [say(spoken(example.slice(2))), say('صح')]);
    assert.deepEqual(steps[2]!.done, { ok: true, value: example }, `${country}: ${spoken(example.slice(2))} → ${steps[1]!.say}`);
  }
});

test('digitsTask: said with the country\'s letters by name, under another country; and in Arabic-Indic digits', () => {
  for (const [country, { example }] of Object.entries({ ...REGISTRY, ...EXPERIMENTAL })) {
    const withLetters = run(digitsTask({ kind: 'iban' }), [say(`الآيبان ${spoken(example)}`), say('إيه')]);
    assert.deepEqual(withLetters[2]!.done, { ok: true, value: example }, `${country} with its letters`);
    const written = run(digitsTask({ kind: 'iban', country: country as 'SA' }), [say(indic(example.slice(2).replace(/(.{4})/g, '$1 '))), say('نعم')]);
    assert.deepEqual(written[2]!.done, { ok: true, value: example }, `${country} in Arabic-Indic digits`);
  }
  // As a transcript writes it, Latin letters and all.
  const iraqi = run(digitsTask({ kind: 'iban' }), [say('IQ98 NBIQ 8501 2345 6789 012'), say('نعم')]);
  assert.deepEqual(iraqi[2]!.done, { ok: true, value: 'IQ98NBIQ850123456789012' });
});

test('a wrong IBAN said is refused, under its country', () => {
  for (const country of ['IQ', 'JO', 'LY', 'TN', 'MA']) {
    const example = (REGISTRY[country] ?? EXPERIMENTAL[country])!.example;
    const steps = run(digitsTask({ kind: 'iban', country: country as 'SA' }), [say(spoken(broken(example).slice(2)))]);
    assert.match(steps[1]!.say!, /غير صحيح/, country);
  }
});

test('بي is B or P: Palestine\'s PALS and Bahrain\'s BMAG both read', () => {
  assert.deepEqual(parseIbanSaid('بي إس تسعة اتنين بي إيه إل إس صفر')?.countries, ['BS', 'PS']);
  const ps = run(digitsTask({ kind: 'iban' }), [say(spoken('PS92PALS000000000400123456702'))]);
  assert.match(ps[1]!.say!, /^الآيبان بي إس تسعة اثنان، بي إيه إل إس، /);
});

test('the turn waits for all the characters of the country\'s IBAN, its letters said by name counted', () => {
  const policy = arabicTurnPolicy();
  // Iraq: 23 characters, less IQ: 21, the four letters of the bank code said by name among them.
  const iraqTask = digitsTask({ kind: 'iban', country: 'IQ' });
  iraqTask.start();
  const iq = { expect: iraqTask.expecting!()! };
  assert.equal(iq.expect.digits?.length, 21);
  assert.equal(policy(spoken('98NBIQ850123456789'), iq).decision, 'incomplete');
  assert.equal(policy(spoken('98NBIQ850123456789012'), iq).decision, 'complete');
  // Qatar: the registry's example ends in seven letters (QA58 DOHB 0000 1234 5678 90AB CDEF G):
  // its 16 digits never made the 23 digits the turn waited for, so it was held to its limit.
  const qatarTask = digitsTask({ kind: 'iban', country: 'QA' });
  qatarTask.start();
  const qa = { expect: qatarTask.expecting!()! };
  assert.equal(policy(spoken('58DOHB00001234567890ABCDEF'), qa).decision, 'incomplete');
  assert.equal(policy(spoken('58DOHB00001234567890ABCDEFG'), qa).decision, 'complete');
  // Libya: 25 characters, all digits after LY: 23.
  const libyaTask = digitsTask({ kind: 'iban', country: 'LY' });
  libyaTask.start();
  const ly = { expect: libyaTask.expecting!()! };
  assert.equal(ly.expect.digits?.length, 23);
  assert.equal(policy(spoken('8300204800002010012036'), ly).decision, 'incomplete');
  assert.equal(policy(spoken('83002048000020100120361'), ly).decision, 'complete');
});

test('an IBAN with letters after its country\'s cannot be keyed: the prompt asks it said, and keys are told why', () => {
  // Bahrain, Iraq, Jordan, Kuwait, Palestine, Qatar and Yemen: a bank code of four letters (4!a).
  const withLetters = Object.entries(IBAN_FORMATS).filter(([, f]) => /!a/.test(f.bban)).map(([c]) => c).sort();
  assert.deepEqual(withLetters, ['BH', 'IQ', 'JO', 'KW', 'PS', 'QA', 'YE']);
  for (const country of withLetters) {
    const task = digitsTask({ kind: 'iban', country: country as 'SA' });
    const first = task.start();
    assert.doesNotMatch(first.say!, /أدخل/, `${country}: the prompt does not offer the keypad`);
    const example = REGISTRY[country]!.example;
    // The digits keyed, the letters left out (they are not on the keypad): told so, and asked to say it.
    const keyedStep = task.next({ kind: 'dtmf', digits: `${example.slice(2).replace(/[A-Z]/g, '')}#` });
    assert.equal(keyedStep.say, `${TASK_DEFAULTS.lines.lettersNotKeyed} ${first.say}`, country);
    // Said, it is read.
    const said = task.next(say(spoken(example.slice(2))));
    assert.match(said.say!, /صحيح؟$/, `${country}: ${said.say}`);
  }
  // A country with digits only is still offered the keypad, and keyed it is read.
  const saudi = digitsTask({ kind: 'iban' });
  assert.match(saudi.start().say!, /أدخلها/);
  assert.match(saudi.next({ kind: 'dtmf', digits: '0380000000608010167519#' }).say!, /صحيح؟$/);
  // Keys three times: the task gives up, as for any value that fails three times.
  const q = digitsTask({ kind: 'iban', country: 'QA' });
  q.start();
  const steps = [1, 2, 3].map(() => q.next({ kind: 'dtmf', digits: '5800001234567890#' }));
  assert.deepEqual(steps[2]!.done, { ok: false, reason: 'max_attempts', lastHeard: '5800001234567890' });
});
