// normalizePhone for each Arab League country: one mobile in its national and international
// forms, and one number its plan gives no mobile (a landline's prefix, or a wrong length). The
// expected values are written from each country's national numbering plan as published in the
// ITU-T's collection of national numbering plans (https://www.itu.int/oth/T0202.aspx?parent=T0202,
// "National Numbering Plans", one page per country) and summed up in Wikipedia's "Telephone
// numbers in <country>" articles; the mobile ranges used are named on each line. Not taken from
// what libphonenumber returns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizePhone, readBackPhone, type PhoneCountry } from '../../src/text/index.ts';

interface Plan {
  /** Why the numbers below are (not) mobiles, from the plan. */
  plan: string;
  /** A mobile as dialled at home (with the trunk 0 where the country has one). */
  national: string;
  /** The same mobile written internationally. */
  international: string;
  e164: string;
  /** A number the plan gives no mobile. */
  invalid: string;
}

const PLANS: Record<PhoneCountry, Plan> = {
  DZ: { plan: '+213, trunk 0; mobiles 05, 06, 07 + 8 digits; 021 is Algiers fixed', national: '0551 23 45 67', international: '+213 551 23 45 67', e164: '+213551234567', invalid: '021 12 34 56' },
  BH: { plan: '+973, no trunk prefix; 8 digits, mobiles 3X; 17 is fixed', national: '3600 1234', international: '00973 3600 1234', e164: '+97336001234', invalid: '1712 3456' },
  KM: { plan: '+269, 7 digits; mobiles 3XX and 4XX; 77X is fixed', national: '321 23 45', international: '+269 321 23 45', e164: '+2693212345', invalid: '773 12 34' },
  DJ: { plan: '+253, 8 digits; mobiles 77; 21 is fixed', national: '77 83 10 01', international: '+253 77 83 10 01', e164: '+25377831001', invalid: '21 35 12 34' },
  EG: { plan: '+20, trunk 0; mobiles 010, 011, 012, 015 + 8 digits', national: '0101 234 5678', international: '+20 101 234 5678', e164: '+201012345678', invalid: '01312345678' },
  IQ: { plan: '+964, trunk 0; mobiles 07[3-9]X + 7 digits (11 with the 0); 10 digits is short', national: '0790 123 4567', international: '+964 790 123 4567', e164: '+9647901234567', invalid: '0790 123 456' },
  JO: { plan: '+962, trunk 0; mobiles 077, 078, 079 + 7 digits; 076 is none', national: '079 123 4567', international: '00962 79 123 4567', e164: '+962791234567', invalid: '076 123 4567' },
  KW: { plan: '+965, no trunk prefix; 8 digits, mobiles 5X, 6X, 9X; 2X is fixed', national: '5001 2345', international: '+965 5001 2345', e164: '+96550012345', invalid: '2212 3456' },
  LB: { plan: '+961, trunk 0; mobiles 03 + 6 digits and 70, 71, 76, 78, 79, 81 + 6 digits; 01 is Beirut fixed', national: '03 123 456', international: '+961 3 123 456', e164: '+9613123456', invalid: '01 123 456' },
  LY: { plan: '+218, trunk 0; mobiles 091, 092, 094, 095 + 7 digits; 021 is Tripoli fixed', national: '091 234 5678', international: '+218 91 234 5678', e164: '+218912345678', invalid: '021 345 6789' },
  MR: { plan: '+222, 8 digits; mobiles 2X, 3X and 4X but 45, which is fixed', national: '22 12 34 56', international: '+222 22 12 34 56', e164: '+22222123456', invalid: '45 25 12 34' },
  MA: { plan: '+212, trunk 0; mobiles 06, 07 + 8 digits; 05 is fixed', national: '06 12 34 56 78', international: '00212 6 12 34 56 78', e164: '+212612345678', invalid: '05 22 12 34 56' },
  OM: { plan: '+968, no trunk prefix; 8 digits, mobiles 7X, 9X; 2X is fixed', national: '9212 3456', international: '+968 9212 3456', e164: '+96892123456', invalid: '2412 3456' },
  PS: { plan: '+970, trunk 0; mobiles 059, 056 + 6 digits; 02 is fixed', national: '0599 123 456', international: '+970 599 123 456', e164: '+970599123456', invalid: '02 298 1234' },
  QA: { plan: '+974, no trunk prefix; 8 digits, mobiles 3X, 5X, 6X, 7X; 4X is fixed', national: '3312 3456', international: '+974 3312 3456', e164: '+97433123456', invalid: '4412 3456' },
  SA: { plan: '+966, trunk 0; mobiles 05X + 7 digits; 011 is Riyadh fixed', national: '050 123 4567', international: '+966 50 123 4567', e164: '+966501234567', invalid: '011 234 5678' },
  SO: { plan: '+252, trunk 0; mobiles 61 + 7 digits (Hormuud); five digits is no number', national: '061 512 3456', international: '+252 61 512 3456', e164: '+252615123456', invalid: '61512' },
  SD: { plan: '+249, trunk 0; mobiles 09X + 7 digits; 0183 is Khartoum fixed', national: '091 234 5678', international: '+249 91 234 5678', e164: '+249912345678', invalid: '0183 123 456' },
  SY: { plan: '+963, trunk 0; mobiles 09[3-9] + 7 digits; 011 is Damascus fixed', national: '0944 567 890', international: '+963 944 567 890', e164: '+963944567890', invalid: '011 234 5678' },
  TN: { plan: '+216, no trunk prefix; 8 digits, mobiles 2X, 4X, 5X, 9X; 7X is fixed', national: '20 123 456', international: '+216 20 123 456', e164: '+21620123456', invalid: '71 123 456' },
  AE: { plan: '+971, trunk 0; mobiles 050, 052, 053, 054, 055, 056, 058 + 7 digits; 04 is Dubai fixed', national: '055 123 4567', international: '+971 55 123 4567', e164: '+971551234567', invalid: '04 123 4567' },
  YE: { plan: '+967, trunk 0; mobiles 070, 071, 073, 077 + 7 digits; 01 is Sanaa fixed', national: '0712 345 678', international: '+967 712 345 678', e164: '+967712345678', invalid: '01 234 567' },
};

test('every Arab League country: a mobile in its national and international forms to E.164, a number that is none to undefined', () => {
  assert.equal(Object.keys(PLANS).length, 22);
  for (const [country, p] of Object.entries(PLANS) as [PhoneCountry, Plan][]) {
    assert.equal(normalizePhone(p.national, country), p.e164, `${country} national ${p.national} (${p.plan})`);
    assert.equal(normalizePhone(p.international, country), p.e164, `${country} international ${p.international}`);
    // An international number is its code's country's whatever the caller's country.
    assert.equal(normalizePhone(p.international, country === 'KW' ? 'SA' : 'KW'), p.e164, `${country} international from another country`);
    assert.equal(normalizePhone(p.invalid, country), undefined, `${country} not a mobile: ${p.invalid} (${p.plan})`);
  }
});

test('a national number without its trunk 0, with 00 and with a 0 after the code, in Arabic-Indic digits', () => {
  assert.equal(normalizePhone('791234567', 'JO'), '+962791234567');
  assert.equal(normalizePhone('00962 079 123 4567', 'SA'), '+962791234567');
  assert.equal(normalizePhone('96550012345'), '+96550012345'); // the code without + or 00
  assert.equal(normalizePhone('٠٦١٢٣٤٥٦٧٨', 'MA'), '+212612345678');
  assert.equal(normalizePhone('۰۷۹۰۱۲۳۴۵۶۷', 'IQ'), '+9647901234567'); // Persian digits, as some keyboards give
  assert.equal(normalizePhone('71 123 456', 'LB'), '+96171123456'); // 71 is dialled without a 0
  // A national number is the caller's country's: Kuwait's 5001 2345 is no Saudi number.
  assert.equal(normalizePhone('5001 2345'), undefined);
  // A country outside the Arab League: not known.
  assert.equal(normalizePhone('+44 7700 900123'), undefined);
});

test('read-back: another country in the groups of its national form', () => {
  assert.equal(readBackPhone('+212612345678'), 'صفر ستة، واحد اثنان، ثلاثة أربعة، خمسة ستة، سبعة ثمانية');
  assert.equal(readBackPhone('+962791234567'), 'صفر سبعة، تسعة واحد اثنان ثلاثة، أربعة خمسة ستة سبعة');
  assert.equal(readBackPhone('+97433123456'), 'ثلاثة ثلاثة واحد اثنان، ثلاثة أربعة خمسة ستة');
});
