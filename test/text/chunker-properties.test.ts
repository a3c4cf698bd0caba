import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SentenceChunker, chunkText } from '../../src/text/chunker.ts';

// Property tests of the chunk guarantee (issue 26) over random Arabic text with embedded numbers,
// amounts, dates and phone numbers, from a small seeded generator (same texts on every run).

function rng(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return { next, int: (a: number, b: number) => a + Math.floor(next() * (b - a + 1)), pick: <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]! };
}
type Rng = ReturnType<typeof rng>;

// Words of replies, some with punctuation; none of them reads a number that follows it.
const WORDS = ['تم', 'إرسال', 'الطلب', 'إلى', 'العميل', 'بنجاح', 'يرجى', 'الانتظار', 'رصيدك', 'الحالي', 'المنتهية', 'الحساب', 'ثم', 'أو',
  'خلال', 'ساعات', 'العمل', 'الرسمية', 'نعتذر', 'عن', 'التأخير', 'وسيتم', 'التواصل', 'معك', 'قريبًا', 'كما', 'يمكنك', 'مراجعة', 'الفرع',
  'الرئيسي', 'حيث', 'لكن', 'إذا', 'أردت', 'شكرًا', 'لك', 'الخدمة', 'متاحة', 'يوميًا', 'من', 'التطبيق', 'و', 'بطاقتك', 'الجديدة'];
// The word just before a unit: no prefix, currency, month, range word, reference keyword or a word
// a reference keyword may stand before (لديك، هو), so the unit is all that belongs to its number.
const BEFORE = ['يوجد', 'هناك', 'المجموع', 'تبقى', 'حوالي', 'نحو', 'بقيت', 'أصبح', 'صار'];
// The word just after a unit: never what a number counts, never a range word.
const AFTER = ['ثم', 'هنا', 'فقط', 'في', 'من', 'على', 'مع', 'إذا', 'لكن', 'حيث', 'كما', 'الآن', 'أيضًا'];
const NOUNS = ['أيام', 'دقيقة', 'ساعات', 'تذكرة', 'ريال', 'حسابات', 'رسائل', 'مخالفة', 'نقطة'];

const digits = (r: Rng, n: number) => Array.from({ length: n }, () => r.int(0, 9)).join('');
const UNITS: ((r: Rng) => string)[] = [
  (r) => `${r.int(1, 999)} ${r.pick(NOUNS)}`,
  (r) => `${r.int(2, 30)} ${r.pick(['يوم', 'أيام', 'ساعة'])} عمل`,
  (r) => `ر.س ${r.int(1, 9999)}.${digits(r, 2)}`,
  (r) => `${r.int(1, 999)} ريال سعودي`,
  (r) => `$${r.int(1, 999)}`,
  (r) => `${r.int(1, 99)},${digits(r, 3)} دينار كويتي`,
  (r) => `${r.int(1, 28)} ${r.pick(['أبريل', 'مارس', 'شوال', 'نوفمبر'])} ${r.int(1990, 2030)}`,
  (r) => `${r.int(1, 29)} ذو الحجة ${r.int(1440, 1450)} هـ`,
  (r) => `${r.int(1990, 2030)}-${r.int(1, 12)}-${r.int(1, 28)}`,
  (r) => `+${r.int(1, 999)} ${r.int(1, 9)} ${digits(r, 3)} ${digits(r, 4)}`,
  (r) => `05${digits(r, 8)}`,
  (r) => `800 ${digits(r, 3)} ${digits(r, 4)}`,
  (r) => `${r.int(1, 12)}:${r.pick(['00', '15', '30', '45'])} ${r.pick(['صباحًا', 'مساءً'])}`,
  (r) => `${r.int(1, 5)} إلى ${r.int(6, 30)} أيام`,
  (r) => `${r.int(1, 99)}%`,
];

interface Sample { text: string; units: [number, number][] }

/** A reply of random words and units, single-spaced, with the place of every unit. */
function sample(r: Rng): Sample {
  const parts: string[] = [];
  const units: [number, number][] = [];
  let length = 0;
  const add = (s: string) => {
    length += (parts.length ? 1 : 0) + s.length;
    parts.push(s);
  };
  for (let i = r.int(4, 60); i > 0; i--) {
    if (r.next() < 0.3) {
      add(r.pick(BEFORE));
      const unit = r.pick(UNITS)(r);
      add(unit);
      units.push([length - unit.length, length]);
      add(r.pick(AFTER));
    } else {
      const w = r.pick(WORDS);
      add(r.next() < 0.12 ? w + r.pick(['،', '.', '؟']) : w);
    }
  }
  return { text: parts.join(' '), units };
}

/** Where each chunk lies in the text (the chunks joined by spaces are the text). */
function spans(chunks: string[]): [number, number][] {
  let at = 0;
  return chunks.map((c) => {
    const span: [number, number] = [at, at + c.length];
    at += c.length + 1;
    return span;
  });
}

function checkGuarantees({ text, units }: Sample, chunks: string[], max: number): void {
  const where = `max ${max}: ${JSON.stringify(text)}\n→ ${JSON.stringify(chunks)}`;
  assert.equal(chunks.join(' '), text, `join equals input; ${where}`);
  const places = spans(chunks);
  for (const [i, c] of chunks.entries()) {
    assert.ok(c.length > 0, `no empty chunk; ${where}`);
    if (c.length <= max) continue;
    const [s, e] = places[i]!;
    assert.ok(units.some(([us, ue]) => us === s && ue === e), `chunk ${JSON.stringify(c)} (${c.length}) over the limit and not one unit; ${where}`);
  }
  for (const [us, ue] of units) {
    assert.ok(places.some(([s, e]) => s <= us && ue <= e), `unit ${JSON.stringify(text.slice(us, ue))} split; ${where}`);
  }
}

test('random replies: join equals input, no chunk over the limit unless it is one unit, no unit split', () => {
  const r = rng(26);
  for (let n = 0; n < 300; n++) {
    const s = sample(r);
    const max = r.int(12, 120);
    checkGuarantees(s, chunkText(s.text, { maxChars: max }), max);
  }
});

test('random replies streamed in random token sizes: the same chunks as the whole text', () => {
  const r = rng(2026);
  for (let n = 0; n < 150; n++) {
    const s = sample(r);
    const max = r.int(12, 120);
    const c = new SentenceChunker({ maxChars: max });
    const out: string[] = [];
    for (let at = 0; at < s.text.length;) {
      const size = r.int(1, 12);
      out.push(...c.push(s.text.slice(at, at + size)));
      at += size;
    }
    out.push(...c.end());
    checkGuarantees(s, out, max);
    assert.deepEqual(out, chunkText(s.text, { maxChars: max }), `max ${max}: ${s.text}`);
  }
});

test('a long unpunctuated streamed sentence yields its first chunk once the four words after the limit are in', () => {
  const words = 'نود إبلاغك بأن طلبك قيد المراجعة لدى القسم المختص وسيتم التواصل معك عبر الهاتف المسجل لدينا في أقرب وقت ممكن بعد اكتمال الإجراءات اللازمة كافة من قبل الفريق';
  const max = 60;
  const c = new SentenceChunker({ maxChars: max });
  let pushed = 0;
  let first: string | undefined;
  for (const ch of words) {
    pushed++;
    first = c.push(ch)[0];
    if (first) break;
  }
  assert.ok(first && first.length <= max, `first chunk ${JSON.stringify(first)}`);
  // The limit, then at most the word crossing it and four more (the longest word here has 9 letters).
  assert.ok(pushed <= max + 5 * 10, `first chunk after ${pushed} characters`);
});

test('a unit longer than the limit is a chunk of its own; the text around it keeps the limit', () => {
  const text = 'للتواصل اتصل على الرقم +971 4 555 0199 في أي وقت خلال ساعات العمل';
  const chunks = chunkText(text, { maxChars: 12 });
  assert.ok(chunks.includes('+971 4 555 0199'), JSON.stringify(chunks));
  assert.ok(chunks.every((c) => c.length <= 12 || c === '+971 4 555 0199'), JSON.stringify(chunks));
});

test('a cut before a connector or after punctuation is preferred to an arbitrary space', () => {
  const text = 'تم استلام طلبك الخاص بتحديث البيانات الشخصية ثم سنراجع المستندات المرفقة كلها بعناية';
  const [first] = chunkText(text, { maxChars: 60 });
  assert.equal(first, 'تم استلام طلبك الخاص بتحديث البيانات الشخصية');
  const [a] = chunkText('تم استلام طلبك بنجاح يا أستاذ، سنراجع المستندات المرفقة كلها بعناية', { maxChars: 40 });
  assert.equal(a, 'تم استلام طلبك بنجاح يا أستاذ،');
});

test('maxChars below 1 is a clear error', () => {
  assert.throws(() => new SentenceChunker({ maxChars: 0 }), /maxChars/);
});
