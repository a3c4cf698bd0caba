import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SentenceChunker, chunkText } from '../../src/text/chunker.ts';

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

// Long replies without punctuation: whatever the length limit, no cut separates a number from
// what belongs to it, so each chunk is normalized right.
const units: [string, string[]][] = [
  ['للتواصل مع الفرع الرئيسي يرجى الاتصال على الرقم +971 4 555 0199 في أي وقت خلال ساعات العمل الرسمية من الأحد إلى الخميس', ['+971 4 555 0199']],
  ['تم العثور على 7 حسابات مرتبطة برقم هويتك وسنرسل لك تفاصيلها عبر الرسائل النصية خلال الساعات القادمة إن شاء الله', ['7 حسابات']],
  ['موعد رحلتك القادمة يوم الجمعة 9 أبريل 2027 من مطار الملك خالد الدولي ويرجى الحضور قبل الموعد بثلاث ساعات على الأقل', ['9 أبريل 2027']],
  ['يمكنك إرسال المستندات على العنوان ص.ب. 12345 الرياض أو تسليمها في أقرب فرع لك مع صورة من الهوية الوطنية سارية المفعول', ['ص.ب. 12345']],
  ['تم خصم مبلغ ر.س 320.50 من حسابك مقابل فاتورة الكهرباء لشهر مارس ويمكنك مراجعة التفاصيل في التطبيق في أي وقت تريده', ['ر.س 320.50']],
  ['بطاقتك المنتهية بـ 4821 موقوفة مؤقتا بسبب محاولات دخول خاطئة متكررة ويمكنك إعادة تفعيلها من التطبيق أو بالاتصال بنا', ['بـ 4821']],
  ['نعتذر لك عن الإزعاج فقد تم إيقاف بطاقتك الائتمانية المنتهية بـ 4821 احترازيا بعد رصد عملية مشبوهة من خارج المملكة', ['المنتهية بـ 4821']],
  ['يسعدنا إبلاغك بأن رقم الطلب الخاص بك هو 48213 وسيتم التوصيل إلى عنوانك المسجل خلال ثلاثة أيام عمل', ['الطلب الخاص بك هو 48213']],
  ['الفرع مفتوح اليوم من الساعة 9:30 صباحًا حتى الساعة 4:00 مساءً ما عدا يوم الجمعة حيث يكون مغلقا طوال اليوم للأسف', ['9:30 صباحًا', '4:00 مساءً']],
];
for (const [text, keep] of units) {
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
  const text = units.map(([t]) => t).join('. ');
  const c = new SentenceChunker({ maxChars: 60 });
  const out: string[] = [];
  for (const ch of text) out.push(...c.push(ch));
  const rest = c.flush();
  if (rest) out.push(rest);
  assert.deepEqual(out, chunkText(text, { maxChars: 60 }));
});
