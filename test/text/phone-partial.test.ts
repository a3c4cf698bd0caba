// A phone number said in part, as the turn policy sees it on each interim transcript: whether more
// digits can still make a mobile, decided without libphonenumber. Written from the national
// numbering plans (ITU-T, "National Numbering Plans", https://www.itu.int/oth/T0202.aspx?parent=T0202,
// as Wikipedia's "Telephone numbers in Saudi Arabia / the United Arab Emirates / Egypt" sum them
// up): Saudi mobiles 05X + 7 digits (9 after the trunk 0), Emirati 050/052/053/054/055/056/058 + 7,
// Egyptian 010/011/012/015 + 8; and the League's calling codes from the ITU-T's list of E.164
// assigned country codes (Annex to the ITU Operational Bulletin).
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { arabicTurnPolicy, digitsTask, type PhoneCountry } from '../../src/index.ts';
import { phoneMayBecome } from '../../src/text/phone-prefix.ts';
import { CALLING_CODES, PHONE_COUNTRIES } from '../../src/text/validate.ts';
import { runCommand } from '../helpers/processes.ts';

/** ITU-T E.164 assigned codes of the League's members. */
const ITU_CODES: Record<PhoneCountry, string> = {
  DZ: '213', BH: '973', KM: '269', DJ: '253', EG: '20', IQ: '964', JO: '962', KW: '965', LB: '961', LY: '218', MR: '222',
  MA: '212', OM: '968', PS: '970', QA: '974', SA: '966', SO: '252', SD: '249', SY: '963', TN: '216', AE: '971', YE: '967',
};

test('the calling codes are the ITU-T\'s, and libphonenumber agrees', async () => {
  assert.deepEqual({ ...CALLING_CODES }, ITU_CODES);
  const lib = await import('libphonenumber-js/mobile');
  for (const c of PHONE_COUNTRIES) assert.equal(lib.getCountryCallingCode(c), ITU_CODES[c], c);
});

test('digits said so far: may more make a mobile, or never', () => {
  const cases: [PhoneCountry, string, boolean, string][] = [
    ['SA', '0', true, 'the trunk 0 of any national number'],
    ['SA', '05', true, 'a Saudi mobile begun'],
    ['SA', '050 123 45', true, '8 of its 10'],
    ['SA', '050 123 4567', true, 'whole'],
    ['SA', '050 123 45678', false, 'one digit too many for 05X + 7'],
    ['SA', '06', false, '06 is no Saudi mobile (fixed lines are 01X)'],
    ['SA', '011 234 5678', true, 'a Riyadh landline, but also an Egyptian 011 mobile begun (011 + 8 digits)'],
    ['SA', '011 234 5678 9', true, 'the Egyptian mobile whole'],
    ['SA', '011 234 5678 90', false, 'one digit too many for Egypt too'],
    ['SA', '1', false, 'no mobile and no League code starts with 1'],
    ['SA', '9', true, 'the beginning of +966, +971 and others'],
    ['SA', '966 5', true, 'the Saudi code said without +, then a mobile begun'],
    ['SA', '+966 6', false, 'the Saudi code, then no mobile'],
    ['SA', '00971 53', true, 'an Emirati mobile, 053 (Virgin Mobile UAE)'],
    ['SA', '00971 57', false, 'UAE 057 is no mobile range'],
    ['SA', '0101', true, 'an Egyptian 010 whatever the caller\'s country'],
    ['SA', '013', false, 'neither Saudi nor Egyptian (013 is no Egyptian mobile range)'],
    ['AE', '053', true, 'UAE 053'],
    ['AE', '051', false, 'UAE 051 is no mobile range'],
    ['EG', '015', true, 'Egypt 015'],
    ['EG', '014', false, 'Egypt 014 is no mobile range'],
    ['SA', '965 5', true, 'Kuwait\'s code: only its own ranges could tell, so it may'],
    ['KW', '5', true, 'a Kuwaiti national number: no ranges of hiwar\'s own, so it may'],
  ];
  for (const [country, said, may, why] of cases) {
    assert.equal(phoneMayBecome(said, country), may, `${country} ${said}: ${why}`);
  }
});

test('the phone turn is not held for digits that cannot make a mobile', () => {
  const policy = arabicTurnPolicy();
  const task = digitsTask({ kind: 'phone' });
  task.start();
  const expect = task.expecting?.();
  assert.equal(policy('صفر خمسة صفر واحد اتنين', { expect }).decision, 'incomplete');
  // 06… is never a Saudi mobile: left to the caller's pause, not held to the hold's limit.
  assert.equal(policy('صفر ستة واحد اتنين تلاتة', { expect }).decision, 'unknown');
  assert.equal(policy('صفر خمسة صفر واحد اتنين تلاتة أربعة خمسة ستة سبعة تمانية', { expect }).decision, 'unknown');
});

test('a Saudi caller\'s number, partial or whole, read and judged, never loads libphonenumber', async () => {
  const root = dirname(fileURLToPath(new URL('../../package.json', import.meta.url)));
  const ts = import.meta.url.endsWith('.ts');
  const module = (name: string) => new URL(`../../src/text/${name}.${ts ? 'ts' : 'js'}`, import.meta.url).href;
  const child = `
    import { createRequire } from 'node:module';
    const { normalizePhone } = await import('${module('validate')}');
    const { phoneMayGoOn, phoneMayBecome } = await import('${module('phone-prefix')}');
    const said = '0501234567';
    for (let i = 1; i <= said.length + 1; i++) {
      const d = (said + '8').slice(0, i);
      normalizePhone(d, 'SA'); phoneMayBecome(d, 'SA');
      if (normalizePhone(d, 'SA')) phoneMayGoOn(d, 'SA');
    }
    for (const d of ['06123', '+9665012', '971501234567', '0101234567']) { normalizePhone(d, 'SA'); phoneMayBecome(d, 'SA'); }
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('libphonenumber-js'));
    console.log(JSON.stringify(loaded.length));
  `;
  const run = await runCommand(process.execPath, [...(ts ? ['--import', 'tsx'] : []), '--input-type=module', '-e', child], { cwd: root, timeoutMs: 120_000 });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim().split('\n').at(-1), '0', 'libphonenumber-js was loaded');
});
