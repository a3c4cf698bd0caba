// IBANs said with words that are also the names of letters, and with their country's letters
// under a task for another country. The IBANs are the SWIFT IBAN Registry's examples (ISO 13616;
// the country pages' "IBAN electronic format example"), their formats the registry's (Kuwait
// KW 30: 4!a22!c; Iraq IQ 23: 4!a3!n12!n; Jordan JO 30: 4!a4!n18!c; Qatar QA 29: 4!a21!c).
// How a caller says one is written here by hand: digits by their names, letters by the names
// Arabic speakers give them (كيه or كي for K, as the brief's `كي دبليو` for Kuwait). The words
// that are also letter names, by what they mean: أو "or" (every variety), إيه "yes" in the Gulf
// (Holes, Colloquial Arabic of the Gulf; Qafisheh, Gulf Arabic dictionary), إي "yes" in the
// Levant (Cowell, A Reference Grammar of Syrian Arabic), دي "this" in Egypt (Abdel-Massih).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digitsTask, type CollectTask, type TaskInput, type TaskStep } from '../../src/index.ts';
import { parseIbanSaid } from '../../src/text/parse-iban.ts';
import { arabicTurnPolicy } from '../../src/pipeline/turn-policy.ts';

const say = (text: string): TaskInput => ({ kind: 'speech', text });
function run<T>(task: CollectTask<T>, inputs: TaskInput[]): TaskStep<T>[] {
  const steps = [task.start()];
  for (const input of inputs) steps.push(task.next(input));
  return steps;
}
const expectOf = (task: CollectTask<string>) => {
  task.start();
  return { expect: task.expecting!()! };
};

const KUWAIT = 'KW81CBKU0000000000001234560101';
const IRAQ = 'IQ98NBIQ850123456789012';
const JORDAN = 'JO94CBJO0010000000000131000302';

// Kuwait's, as a Gulf caller says it in groups, the bank code by its letters.
const KUWAIT_HEAD = 'كيه دبليو تمانية واحد، سي بي كيه يو';
const KUWAIT_ZEROS = 'صفر صفر صفر صفر، صفر صفر صفر صفر، صفر صفر صفر صفر';
const KUWAIT_TAIL = 'واحد اتنين تلاتة أربعة، خمسة ستة صفر واحد، صفر واحد';
// Iraq's, after its letters.
const IRAQ_SAID = 'تسعة تمانية، إن بي آي كيو، تمانية خمسة صفر، واحد اتنين تلاتة أربعة، خمسة ستة سبعة تمانية، تسعة صفر واحد اتنين';

test('a word that is also a letter\'s name, alone between groups of digits, is that word, not a letter', () => {
  // Gulf إيه ("yes") said back to the agent between groups, in the part of a Kuwaiti IBAN that may hold letters (22!c).
  const gulf = `${KUWAIT_HEAD}، ${KUWAIT_ZEROS}، إيه، ${KUWAIT_TAIL}`;
  assert.equal(parseIbanSaid(gulf)?.rest, KUWAIT.slice(2));
  assert.deepEqual(run(digitsTask({ kind: 'iban', country: 'KW' }), [say(gulf), say('صح')])[2]!.done, { ok: true, value: KUWAIT });
  // Levantine إي ("yes") in a Jordanian one (18!c after the bank code and branch).
  const levant = 'جيه أو تسعة أربعة، سي بي جيه أو، صفر صفر واحد صفر، صفر صفر صفر صفر، إي، صفر صفر صفر صفر، صفر واحد تلاتة واحد، صفر صفر صفر تلاتة، صفر اتنين';
  assert.deepEqual(run(digitsTask({ kind: 'iban', country: 'JO' }), [say(levant), say('إي')])[2]!.done, { ok: true, value: JORDAN });
});

test('a letter is taken only where the country\'s BBAN has one: "أو" after the last digit, or among digits only, is no character', () => {
  // "…، أو أعيده؟" ("or shall I say it again?") after Iraq's last digit: the O was a 22nd character.
  const asking = `${IRAQ_SAID}، أو أعيده؟`;
  // (آي is I or E, as إي: the task takes the reading that passes the check.)
  assert.equal(parseIbanSaid(asking, 'IQ')?.rest.length, 21);
  assert.deepEqual(run(digitsTask({ kind: 'iban', country: 'IQ' }), [say(asking), say('نعم')])[2]!.done, { ok: true, value: IRAQ });
  // Iraq's account number is digits (12!n): the caller hesitating "أو" there counts for nothing, so
  // the turn waits for the last digit instead of closing one character early.
  const policy = arabicTurnPolicy();
  const iq = expectOf(digitsTask({ kind: 'iban', country: 'IQ' }));
  assert.equal(policy('تسعة تمانية، إن بي آي كيو، تمانية خمسة صفر، واحد اتنين تلاتة أربعة، خمسة ستة سبعة تمانية، تسعة صفر واحد، أو', iq).decision, 'incomplete');
  assert.equal(policy(IRAQ_SAID, iq).decision, 'complete');
});

test('the same names in a run of letters are letters: the bank code\'s O of CBJO, Qatar\'s account letters', () => {
  assert.equal(parseIbanSaid('جيه أو تسعة أربعة، سي بي جيه أو، صفر صفر واحد صفر')?.rest, '94CBJO0010');
  // The registry's Qatari example ends in seven letters (…90ABCDEFG): إيه، بي، دي، إي among them.
  const qatar = 'كيو إيه خمسة تمانية، دي أو إتش بي، صفر صفر صفر صفر، واحد اتنين تلاتة أربعة، خمسة ستة سبعة تمانية، تسعة صفر، إيه بي سي دي إي إف جي';
  assert.deepEqual(run(digitsTask({ kind: 'iban' }), [say(qatar), say('نعم')])[2]!.done, { ok: true, value: 'QA58DOHB00001234567890ABCDEFG' });
});

/** ISO 13616's check digits for a country and BBAN: 98 less the number (letters as 10–35) of BBAN + country + 00, mod 97. */
function withCheck(country: string, bban: string): string {
  const digits = [...`${bban}${country}00`].map((c) => (/\d/.test(c) ? c : String(c.charCodeAt(0) - 55))).join('');
  const rest = [...digits].reduce((r, d) => (r * 10 + Number(d)) % 97, 0);
  return `${country}${String(98 - rest).padStart(2, '0')}${bban}`;
}
const DIGIT = ['صفر', 'واحد', 'اتنين', 'تلاتة', 'أربعة', 'خمسة', 'ستة', 'سبعة', 'تمانية', 'تسعة'];

test('a lone name that is a letter after all is read as one second, and the check digits decide', () => {
  const said = parseIbanSaid(`${KUWAIT_HEAD}، ${KUWAIT_ZEROS}، واحد اتنين تلاتة أربعة، إيه، خمسة ستة صفر واحد، صفر واحد`, 'KW')!;
  assert.deepEqual(said.readings.slice(0, 2), [KUWAIT.slice(2), `${KUWAIT.slice(2, 24)}A${KUWAIT.slice(24)}`]);
  // A Kuwaiti account that holds an A (22!c allows it), its check digits made for it by ISO 13616.
  const iban = withCheck('KW', 'CBKU0000000000001234A56010');
  const check = [...iban.slice(2, 4)].map((d) => DIGIT[Number(d)]).join(' ');
  const text = `كيه دبليو ${check}، سي بي كيه يو، ${KUWAIT_ZEROS}، واحد اتنين تلاتة أربعة، إيه، خمسة ستة صفر واحد صفر`;
  assert.deepEqual(run(digitsTask({ kind: 'iban', country: 'KW' }), [say(text), say('صح')])[2]!.done, { ok: true, value: iban });
});

test('an IBAN said with its country\'s letters under the default task follows that country: its length, its turn', () => {
  const policy = arabicTurnPolicy();
  const sa = expectOf(digitsTask({ kind: 'iban' }));
  // كي دبليو: Kuwait. Its 28 characters after KW were cut at the 22 digits of a Saudi IBAN.
  const kuwait = `كي دبليو تمانية واحد، سي بي كيه يو، ${KUWAIT_ZEROS}، ${KUWAIT_TAIL}`;
  assert.equal(policy(`كي دبليو تمانية واحد، سي بي كيه يو، ${KUWAIT_ZEROS}، واحد اتنين تلاتة أربعة، خمسة ستة`, sa).decision, 'incomplete');
  assert.equal(policy(kuwait, sa).decision, 'complete');
  assert.deepEqual(run(digitsTask({ kind: 'iban' }), [say(kuwait), say('صح')])[2]!.done, { ok: true, value: KUWAIT });
  // Iraq's 21 characters after IQ, 17 of them digits, never made 22 digits: held to the limit.
  assert.equal(policy(`آي كيو ${IRAQ_SAID}`, sa).decision, 'complete');
  // A Gulf "yes" before the letters (إيه، كيه دبليو…) leaves the country said.
  assert.equal(parseIbanSaid(`إيه، ${kuwait}`)?.country, 'KW');
  // Letters before the digits that are no country's end ("IBAN" written in a mixed transcript) leave the task's country.
  assert.deepEqual(run(digitsTask({ kind: 'iban' }), [say('IBAN 03 8000 0000 6080 1016 7519'), say('نعم')])[2]!.done, { ok: true, value: 'SA0380000000608010167519' });
  // Without letters said, the task's country's length, as before.
  assert.equal(policy('صفر تلاتة، تمانية صفر صفر صفر، صفر صفر صفر صفر، ستة صفر تمانية صفر، واحد صفر واحد ستة، سبعة خمسة واحد', sa).decision, 'incomplete');
});
