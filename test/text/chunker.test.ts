import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SentenceChunker, chunkText } from '../../src/text/chunker.ts';
import { LONG_REPLIES } from './long-replies.ts';

const cases: [string, string[]][] = [
  ['مرحبا بك. كيف أستطيع مساعدتك اليوم؟', ['مرحبا بك.', 'كيف أستطيع مساعدتك اليوم؟']],
  ['رصيدك هو 3.5 مليون ريال. هل تحتاج شيئا آخر؟', ['رصيدك هو 3.5 مليون ريال.', 'هل تحتاج شيئا آخر؟']],
  ['المبلغ 1,000 ريال فقط لا غير. شكرا لك', ['المبلغ 1,000 ريال فقط لا غير.', 'شكرا لك']],
  ['زر الموقع example.com للمزيد من التفاصيل. مع السلامة', ['زر الموقع example.com للمزيد من التفاصيل.', 'مع السلامة']],
  ['قابلت د. أحمد في الفرع الرئيسي صباحا. ثم عدت', ['قابلت د. أحمد في الفرع الرئيسي صباحا.', 'ثم عدت']],
  ['نعم. لا. ربما', ['نعم. لا.', 'ربما']],
  ['حسنا، سأقوم بإيقاف البطاقة الآن، انتظر قليلا من فضلك، شكرا', ['حسنا، سأقوم بإيقاف البطاقة الآن، انتظر قليلا من فضلك،', 'شكرا']],
  ['هل أنت متأكد؟! هذا قرار مهم جدا لحسابك', ['هل أنت متأكد؟!', 'هذا قرار مهم جدا لحسابك']],
  ['السطر الأول من الرد\nالسطر الثاني من الرد', ['السطر الأول من الرد', 'السطر الثاني من الرد']],
  ['The card is blocked. تم إيقاف البطاقة بنجاح.', ['The card is blocked.', 'تم إيقاف البطاقة بنجاح.']],
  ['I met Dr. Smith at the branch today. Good', ['I met Dr. Smith at the branch today.', 'Good']],
  ['انتظر… جاري التحقق من طلبك الآن', ['انتظر… جاري التحقق من طلبك الآن']],
];
for (const [text, chunks] of cases) test(`chunk: ${text.slice(0, 30)}`, () => assert.deepEqual(chunkText(text), chunks));

test('streaming: a chunk comes out only once what follows the period has arrived', () => {
  const c = new SentenceChunker();
  assert.deepEqual(c.push('مرحبا بك في البنك'), []);
  assert.deepEqual(c.push('.'), []);
  assert.deepEqual(c.push(' كيف'), ['مرحبا بك في البنك.']);
  assert.deepEqual(c.push(' حالك؟'), []);
  assert.equal(c.flush(), 'كيف حالك؟');
  assert.equal(c.flush(), undefined);
});

test('streaming: token-sized deltas give the same chunks as the whole text', () => {
  const text = 'أهلا بك في خدمة العملاء. رصيدك الحالي 2,500.75 ريال. هل تريد شيئا آخر؟';
  const c = new SentenceChunker();
  const out: string[] = [];
  for (const ch of text) out.push(...c.push(ch));
  out.push(c.flush()!);
  assert.deepEqual(out, chunkText(text));
  assert.equal(out.length, 3);
});

test('a long run without punctuation is cut at a space before the maximum', () => {
  const words = Array(80).fill('كلمة').join(' ');
  const chunks = chunkText(words, { maxChars: 100 });
  assert.ok(chunks.length > 1);
  assert.ok(chunks.every((c) => c.length <= 100));
  assert.equal(chunks.join(' '), words);
});

for (const [text, keep] of LONG_REPLIES) {
  test(`never cut inside: ${keep.join(', ')}`, () => {
    for (let max = 20; max <= 90; max += 3) {
      const chunks = chunkText(text, { maxChars: max });
      assert.equal(chunks.join(' '), text, `max ${max}: nothing lost`);
      for (const unit of keep) assert.ok(chunks.some((c) => c.includes(unit)), `max ${max}: "${unit}" cut in ${JSON.stringify(chunks)}`);
    }
  });
}

test('a period inside an abbreviation written with several periods ends no sentence', () => {
  assert.deepEqual(chunkText('أرسل الطلب إلى ص.ب. 11564 في الرياض. شكرا لك'), ['أرسل الطلب إلى ص.ب. 11564 في الرياض.', 'شكرا لك']);
  assert.deepEqual(chunkText('The office is in the U.S.A. near the airport. Thanks'), ['The office is in the U.S.A. near the airport.', 'Thanks']);
});

test('streaming cuts long unpunctuated text exactly as the whole text', () => {
  const text = LONG_REPLIES.map(([t]) => t).join('. ');
  const c = new SentenceChunker({ maxChars: 60 });
  const out: string[] = [];
  for (const ch of text) out.push(...c.push(ch));
  out.push(...c.end());
  assert.deepEqual(out, chunkText(text, { maxChars: 60 }));
});
