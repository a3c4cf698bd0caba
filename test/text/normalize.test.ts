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
  ['رصيدك 250 ريال.', 'رصيدك مئتان وخمسون ريالًا سعوديًا.'],
  ['رصيدك ٢٥٠ ريال', 'رصيدك مئتان وخمسون ريالًا سعوديًا'],
  ['المبلغ SAR 1,500', 'المبلغ ألف وخمسمئة ريال سعودي'],
  ['المبلغ 3 AED', 'المبلغ ثلاثة دراهم إماراتية'],
  ['الرسوم 12.50 ر.س', 'الرسوم اثنا عشر ريالًا سعوديًا وخمسون هللةً'],
  ['حوّل $20 الآن', 'حوّل عشرون دولارًا أمريكيًا الآن'],
  ['السعر 100 EGP', 'السعر مئة جنيه مصري'],
  ['نسبة الفائدة 3.5%', 'نسبة الفائدة ثلاثة فاصلة خمسة بالمئة'],
  ['خصم ١٥٪', 'خصم خمسة عشر بالمئة'],
  ['الفرع يفتح 9:00 ص', 'الفرع يفتح الساعة التاسعة صباحًا'],
  ['نغلق 10:30', 'نغلق الساعة العاشرة والنصف'],
  ['الموعد 2026-11-21', 'الموعد الحادي والعشرون من نوفمبر ألفين وستة وعشرين'],
  ['الموعد 5/1/2027', 'الموعد الخامس من يناير ألفين وسبعة وعشرين'],
  ['منذ 2002-2-1', 'منذ الأول من فبراير ألفين واثنين'],
  ['اتصل على 920001234', 'اتصل على تسعة اثنان صفر صفر صفر واحد اثنان ثلاثة أربعة'],
  ['**مهم**: بطاقتك موقوفة', 'مهم: بطاقتك موقوفة'],
  ['زر https://bank.example/help للمزيد', 'زر الرابط المرسل للمزيد'],
  ['تم الإيقاف ✅ 🎉', 'تم الإيقاف'],
  ['لديك 3 بطاقات', 'لديك ثلاثة بطاقات'],
  ['Visa card رقم 4', 'Visa card رقم أربعة'],
  ['الفرع رقم 1.', 'الفرع رقم واحد.'],
];
for (const [input, expected] of speech) test(`speech: ${input}`, () => assert.equal(normalizeForSpeech(input), expected));

test('markup: headings, lists, links, code and tables become plain text', () => {
  const md = '# الخطوات\n- افتح التطبيق\n- اختر [البطاقات](https://x.y/cards)\n`رمز` | جدول';
  assert.equal(stripMarkup(md), 'الخطوات\nافتح التطبيق\nاختر البطاقات\nرمز جدول');
});
