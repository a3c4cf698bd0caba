import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeForSpeech, stripMarkup } from '../../src/text/normalize.ts';
import { countNoun, numberToWords, ordinal, type Noun } from '../../src/text/numbers.ts';

const riyal = { singular: 'ريال', dual: 'ريالان', plural: 'ريالات', accusative: 'ريالًا', gender: 'm' as const };
const lira = { singular: 'ليرة', dual: 'ليرتان', plural: 'ليرات', accusative: 'ليرةً', gender: 'f' as const };

const numbers: [number, string][] = [
  [0, 'صفر'], [1, 'واحد'], [2, 'اثنان'], [3, 'ثلاثة'], [10, 'عشرة'], [11, 'أحد عشر'], [12, 'اثنا عشر'],
  [13, 'ثلاثة عشر'], [19, 'تسعة عشر'], [20, 'عشرون'], [21, 'واحد وعشرون'], [45, 'خمسة وأربعون'], [99, 'تسعة وتسعون'],
  [100, 'مئة'], [101, 'مئة وواحد'], [200, 'مئتان'], [250, 'مئتان وخمسون'], [999, 'تسعمئة وتسعة وتسعون'],
  [1000, 'ألف'], [2000, 'ألفان'], [3000, 'ثلاثة آلاف'], [11000, 'أحد عشر ألفًا'], [100000, 'مئة ألف'],
  [1500, 'ألف وخمسمئة'], [2026, 'ألفان وستة وعشرون'], [1000000, 'مليون'], [2500000, 'مليونان وخمسمئة ألف'], [-5, 'سالب خمسة'],
];
for (const [n, words] of numbers) test(`number ${n} → ${words}`, () => assert.equal(numberToWords(n), words));

const feminine: [number, string][] = [[1, 'واحدة'], [2, 'اثنتان'], [3, 'ثلاث'], [12, 'اثنتا عشرة'], [15, 'خمس عشرة'], [23, 'ثلاث وعشرون']];
for (const [n, words] of feminine) test(`feminine ${n} → ${words}`, () => assert.equal(numberToWords(n, 'f'), words));

const counted: [number, Noun, string][] = [
  [1, riyal, 'ريال واحد'], [2, riyal, 'ريالان'], [3, riyal, 'ثلاثة ريالات'], [10, riyal, 'عشرة ريالات'],
  [11, riyal, 'أحد عشر ريالًا'], [25, riyal, 'خمسة وعشرون ريالًا'], [100, riyal, 'مئة ريال'], [103, riyal, 'مئة وثلاثة ريالات'],
  [1, lira, 'ليرة واحدة'], [3, lira, 'ثلاث ليرات'], [15, lira, 'خمس عشرة ليرةً'], [2, lira, 'ليرتان'],
];
for (const [n, noun, words] of counted) test(`count ${n} ${noun.singular} → ${words}`, () => assert.equal(countNoun(n, noun), words));

test('ordinals for days and hours', () => {
  assert.equal(ordinal(1), 'الأول');
  assert.equal(ordinal(21), 'الحادي والعشرون');
  assert.equal(ordinal(10, 'f'), 'العاشرة');
  assert.equal(ordinal(11, 'f'), 'الحادية عشرة');
});

const speech: [string, string][] = [
  ['رصيدك 250 ريال.', 'رصيدك مئتان وخمسون ريالًا.'],
  ['رصيدك ٢٥٠ ريال', 'رصيدك مئتان وخمسون ريالًا'],
  ['المبلغ SAR 1,500', 'المبلغ ألف وخمسمئة ريال سعودي'],
  ['المبلغ 3 AED', 'المبلغ ثلاثة دراهم إماراتية'],
  ['الرسوم 12.50 ر.س', 'الرسوم اثنا عشر ريالًا سعوديًا وخمسون هللةً'],
  ['حوّل $20 الآن', 'حوّل عشرين دولارًا أمريكيًا الآن'],
  ['السعر 100 EGP', 'السعر مئة جنيه مصري'],
  ['نسبة الفائدة 3.5%', 'نسبة الفائدة ثلاثة فاصلة خمسة بالمئة'],
  ['خصم ١٥٪', 'خصم خمسة عشر بالمئة'],
  ['الفرع يفتح 9:00 ص', 'الفرع يفتح الساعة التاسعة صباحًا'],
  ['نغلق 10:30', 'نغلق الساعة العاشرة والنصف'],
  ['الموعد 2026-11-21', 'الموعد الحادي والعشرون من نوفمبر ألفين وستة وعشرين'],
  ['الموعد 5/1/2027', 'الموعد الخامس من يناير ألفين وسبعة وعشرين'],
  ['منذ 2002-2-1', 'منذ الأول من فبراير ألفين واثنين'],
  ['اتصل على 920001234', 'اتصل على تسعة اثنان صفر صفر، صفر واحد اثنان ثلاثة أربعة'],
  ['**مهم**: بطاقتك موقوفة', 'مهم: بطاقتك موقوفة'],
  ['زر https://bank.example/help للمزيد', 'زر الرابط المرسل للمزيد'],
  ['تم الإيقاف ✅ 🎉', 'تم الإيقاف'],
  ['لديك 3 بطاقات', 'لديك ثلاث بطاقات'],
  ['الانتظار 2 دقيقة', 'الانتظار دقيقتان'],
  ['خلال 5 أيام عمل', 'خلال خمسة أيام عمل'],
  ['بعد 15 دقيقة', 'بعد خمس عشرة دقيقةً'],
  ['منذ 1 سنة', 'منذ سنة واحدة'],
  ['من الساعة 9:00 حتى الساعة 17:00', 'من الساعة التاسعة حتى الساعة الخامسة عصرًا'],
  ['Visa card رقم 4', 'Visa card رقم أربعة'],
  ['الفرع رقم 1.', 'الفرع رقم واحد.'],
];
for (const [input, expected] of speech) test(`speech: ${input}`, () => assert.equal(normalizeForSpeech(input), expected));

test('markup: headings, lists, links, code and tables become plain text', () => {
  const md = '# الخطوات\n- افتح التطبيق\n- اختر [البطاقات](https://x.y/cards)\n`رمز` | جدول';
  assert.equal(stripMarkup(md), 'الخطوات\nافتح التطبيق\nاختر البطاقات\nرمز جدول');
});

test('options: case endings off keeps the nominative', async () => {
  const { createNormalizer } = await import('../../src/text/normalize.ts');
  assert.equal(createNormalizer({ caseEndings: false })('تم الدفع قبل 2 يوم بنسبة 30%'), 'تم الدفع قبل يومان بنسبة ثلاثون بالمئة');
  assert.equal(normalizeForSpeech('تم الدفع قبل 2 يوم بنسبة 30%'), 'تم الدفع قبل يومين بنسبة ثلاثين بالمئة');
});

test('options: references as whole numbers; phones and leading zeros stay digits', async () => {
  const { createNormalizer } = await import('../../src/text/normalize.ts');
  const n = createNormalizer({ references: 'number' });
  assert.equal(n('رقم الطلب 48213، الهاتف 0501234567'), 'رقم الطلب ثمانية وأربعون ألفًا ومئتان وثلاثة عشر، الهاتف صفر خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة');
});

test('options: users add counted nouns, reference keywords and ordinal nouns', async () => {
  const { createNormalizer } = await import('../../src/text/normalize.ts');
  const text = 'لديك 3 حصص و 2 حصة. رقم السند 5521. القاعة 3';
  assert.equal(normalizeForSpeech('لديك 3 حصص. السند 5521. القاعة 3'), 'لديك ثلاثة حصص. السند خمسة آلاف وخمسمئة وواحد وعشرون. القاعة ثلاثة');
  const n = createNormalizer({ nouns: [{ singular: 'حصة', plural: 'حصص', gender: 'f' }], referenceKeywords: ['سند'], ordinalNouns: { 'قاعة': 'f' } });
  assert.equal(n(text), 'لديك ثلاث حصص وحصتان. رقم السند خمسة خمسة اثنان واحد. القاعة الثالثة');
  assert.equal(n('السند 5521'), 'السند خمسة خمسة اثنان واحد');
});

test('options: users add verbs whose object a number is, with their masdar', async () => {
  const { createNormalizer } = await import('../../src/text/normalize.ts');
  const text = 'يمكنك ربط 2 حساب، وقد ربطنا 2 بطاقة.';
  assert.equal(normalizeForSpeech(text), 'يمكنك ربط حسابان، وقد ربطنا بطاقتان.');
  const n = createNormalizer({ verbs: [{ past: 'ربط', present: 'يربط', imperative: 'اربط', masdar: 'ربط' }] });
  assert.equal(n(text), 'يمكنك ربط حسابين، وقد ربطنا بطاقتين.');
});

test('verb forms: every conjugation a reply writes is derived from the entry', async () => {
  const { verbForms } = await import('../../src/text/case-lexicon.ts');
  const forms = verbForms({ past: 'أضاف', pastStem: 'أضف', present: 'يضيف', imperative: 'أضف' });
  for (const f of ['أضاف', 'أضفنا', 'أضفت', 'يضيف', 'تضيف', 'نضيف', 'سنضيف', 'سيضيف', 'أضفي']) assert.ok(forms.includes(f), f);
  assert.ok(verbForms({ past: 'منح', present: 'يمنح', twoObjects: true }).includes('نمنحك'));
});

const cases: [number, string, string][] = [
  [2, 'اثنان', 'اثنين'], [12, 'اثنا عشر', 'اثني عشر'], [20, 'عشرون', 'عشرين'], [22, 'اثنان وعشرون', 'اثنين وعشرين'],
  [200, 'مئتان', 'مئتين'], [2000, 'ألفان', 'ألفين'], [20000, 'عشرون ألفًا', 'عشرين ألفًا'], [2000000, 'مليونان', 'مليونين'],
];
for (const [n, nom, gen] of cases) {
  test(`case: ${n} → ${nom} / ${gen}`, async () => {
    const { cardinal } = await import('../../src/text/numbers.ts');
    assert.equal(cardinal(n), nom);
    assert.equal(cardinal(n, { grammaticalCase: 'genitive' }), gen);
    assert.equal(cardinal(n, { grammaticalCase: 'accusative' }), gen);
  });
}

test('construct state: the last part before a counted noun loses its nun or tanween', async () => {
  const { cardinal } = await import('../../src/text/numbers.ts');
  assert.equal(cardinal(200, { construct: true }), 'مئتا');
  assert.equal(cardinal(200, { construct: true, grammaticalCase: 'genitive' }), 'مئتي');
  assert.equal(cardinal(2000, { construct: true }), 'ألفا');
  assert.equal(cardinal(11000, { construct: true }), 'أحد عشر ألف');
  assert.equal(cardinal(11000), 'أحد عشر ألفًا');
  assert.equal(cardinal(200000), 'مئتا ألف');
});

test('unknown nouns: gender and plural from the form', async () => {
  const { guessNoun } = await import('../../src/text/lexicon.ts');
  assert.deepEqual([guessNoun('عيادات').noun.gender, guessNoun('عيادات').noun.singular], ['f', 'عيادة']);
  assert.deepEqual([guessNoun('تنبيهات').noun.gender, guessNoun('تنبيهات').noun.singular], ['m', 'تنبيه']);
  assert.deepEqual([guessNoun('استفسارات').noun.gender, guessNoun('اجتماعات').noun.gender], ['m', 'm']);
  assert.equal(guessNoun('مدينة').noun.dual, 'مدينتان');
  assert.equal(guessNoun('توقيع').sure, false);
});

test('any mix of numbers, symbols and Arabic words: no throw, and no digit left unread', () => {
  const tokens = ['رقم', 'الطلب', 'بـ', 'في', '12', '3.5', '1,000', '0.75', '+966', '2026-11-21', '9:30', 'صباحًا', '%', '٪', 'ر.س', 'ريال',
    'دقيقة', 'أيام', 'الساعة', 'من', 'إلى', '2', '1', '٣', 'مليون', 'ألف', 'هـ', 'شوال', 'ذو', 'الحجة', 'و', '،', 'كم', 'الدور', 'للمرة',
    'بين', '007', '24-48', '12/2028', '1/2', '45', '100', '200', '11000', '2000000', '0', '٢٫٥', '-', '17:00', 'مساءً', '13', 'طلب', 'مكالمة'];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 3000; i++) {
    const text = Array.from({ length: 1 + Math.floor(rnd() * 8) }, () => tokens[Math.floor(rnd() * tokens.length)]).join(' ');
    const said = normalizeForSpeech(text);
    assert.ok(!/\d/.test(said), `${text} → ${said}`);
  }
});
