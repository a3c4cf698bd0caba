/**
 * Reference numbers (card endings, codes, order, booking and flight numbers, IBANs, phones) are
 * read character by character, never as amounts: "4821" after "تنتهي بـ" is أربعة ثمانية اثنان
 * واحد, not four thousand. Whether a number is a reference comes from the words before it, its
 * length, a leading zero, a leading + or its Latin letters.
 */
import { groupsForEar } from './digit-groups.ts';
import { digitsToWords } from './numbers.ts';

/** How Latin letters are said in Arabic speech. */
export const LETTER_NAMES: Record<string, string> = {
  A: 'إيه', B: 'بي', C: 'سي', D: 'دي', E: 'إي', F: 'إف', G: 'جي', H: 'إتش', I: 'آي', J: 'جيه', K: 'كيه', L: 'إل', M: 'إم',
  N: 'إن', O: 'أو', P: 'بي', Q: 'كيو', R: 'آر', S: 'إس', T: 'تي', U: 'يو', V: 'في', W: 'دبليو', X: 'إكس', Y: 'واي', Z: 'زد',
};

/**
 * Words that announce a reference, in their bare form (no article, prefix or pronoun suffix:
 * "بطاقتك", "بالرقم", "ورمز" all match). Users add more with `referenceKeywords`.
 */
export const REFERENCE_KEYWORDS = [
  'بطاقة', 'رمز', 'كود', 'رقم', 'طلب', 'حجز', 'رحلة', 'تذكرة', 'حساب', 'آيبان', 'ايبان', 'مرجع', 'مرجعي', 'شحنة', 'تتبع',
  'بوليصة', 'فاتورة', 'عقد', 'معاملة', 'بلاغ', 'شكوى', 'هوية', 'إقامة', 'جواز', 'هاتف', 'جوال', 'موبايل', 'تحويلة', 'مقعد',
  'بوابة', 'عضوية', 'عميل', 'سجل', 'تحقق', 'تفعيل', 'مرور', 'سري', 'ينتهي', 'تنتهي', 'منتهية', 'منتهي', 'اتصل', 'اتصال',
  'أرقام', 'ساخن', 'موحد', 'واتساب', 'حوالة', 'لوحة', 'صندوق', 'ص.ب', 'بريدي', 'بريد', 'PIN', 'OTP', 'IBAN', 'PNR', 'flight', 'order', 'ref',
];

/** Keywords after which up to three digits are a plain number (البوابة 12, المقعد 7); longer or with letters, a reference. */
const SHORT_AS_NUMBER = new Set(['بوابة', 'مقعد', 'صالة', 'مبنى', 'محطة']);

/** Words before a keyword that make the number an amount of it. */
const AMOUNT_OF = new Set(['رصيد', 'مبلغ', 'قيمة', 'سعر', 'رسوم', 'تكلفة', 'إجمالي', 'مجموع', 'حد', 'حدود', 'أقصى', 'أدنى', 'سقف', 'مستحقات', 'فائدة']);

/** Words that may stand between the keyword and the number ("رقم الطلب الخاص بك هو 4821"). */
const CONNECTORS = new Set(['على', 'عبر', 'هو', 'هي', 'ب', 'بـ', 'الخاص', 'الخاصة', 'بك', 'بكم', 'لدينا', 'لديك', 'التالي', 'الجديد', ':', 'no', 'number', 'رقمه', 'رقمها']);

/** A word without diacritics, conjunction, preposition or article. */
export function bareWord(w: string): string {
  let s = w.replace(/[\u064B-\u0652\u0640]/g, '').replace(/[:،,.]+$/, '');
  s = s.replace(/^[وف](?=\p{L}{3})/u, '');
  s = s.replace(/^(?:[بلك]?ال|لل)(?=\p{L}{2})/u, '');
  return s;
}

/** The bare word, and the same without a pronoun suffix (بطاقتك → بطاقة, طلبك → طلب). */
function bareForms(w: string): string[] {
  const s = bareWord(w);
  const suffixed = s.match(/^(\p{L}{2,}?)(ت)?(كم|كن|ها|هم|نا|ك|ي|ه)$/u);
  return suffixed ? [s, suffixed[2] ? `${suffixed[1]}ة` : suffixed[1]!] : [s];
}

export class ReferenceWords {
  private readonly keywords: Set<string>;
  constructor(extra: string[] = []) {
    this.keywords = new Set([...REFERENCE_KEYWORDS, ...extra].map((k) => k.toLowerCase()));
  }

  private isKeyword(w: string): boolean {
    const lower = w.toLowerCase().replace(/[:،,.]+$/, '');
    return this.keywords.has(lower) || bareForms(w).some((f) => this.keywords.has(f.toLowerCase()));
  }

  /**
   * What the words before a number say about it: 'reference' after a keyword such as رمز or
   * رقم الطلب, 'number' after a bare رقم ("اضغط رقم 3", "الفرع رقم 12"), undefined otherwise.
   */
  announced(before: string): 'reference' | 'number' | undefined {
    const words = before.split(/\s+/).filter(Boolean).slice(-4).reverse();
    let bareNumber = false;
    for (const [i, w] of words.entries()) {
      if (i === 0 && /^(?:ال|بال)?رقم$/.test(w)) {
        bareNumber = true;
        continue;
      }
      if (this.isKeyword(w)) {
        // "رصيد حسابك 5000", "الحد الأقصى لبطاقتك 5000": an amount of the account, not its number.
        if (AMOUNT_OF.has(bareWord(words[i + 1] ?? ''))) return undefined;
        return SHORT_AS_NUMBER.has(bareWord(w)) ? 'number' : 'reference';
      }
      // "رقم الوصل 5521": whatever is numbered, a number after it is its reference.
      if (i === 0 && /^ال\p{L}{2,}$/u.test(w) && /^(?:و|ب)?(?:ال)?رقم$/.test(words[1] ?? '')) return 'reference';
      if (!CONNECTORS.has(w.toLowerCase())) break;
    }
    return bareNumber ? 'number' : undefined;
  }
}

/**
 * A reference read out: digits one by one, Latin letters by name, groups apart ("، "). A long
 * run of digits written without spaces is cut for the ear (`groupsForEar`: 0501234567 as
 * 050، 123، 4567; +966501234567 as +966، 50، 123، 4567; an account number in fours).
 */
export function spellReference(ref: string): string {
  const written = ref.trim().split(/[\s-]+/).filter(Boolean);
  // "4 8 2 1" is one run of digits written apart, not four groups.
  const apart = written.every((g) => g.length === 1);
  // An IBAN written in one piece is said in fours, as it is printed.
  const groups = written.flatMap((g) => (/^\+?\d+$/.test(g) ? groupsForEar(g) : /^[A-Z]{2}\d{2}[A-Z0-9]{8,}$/.test(g) ? g.match(/.{1,4}/g)! : [g]));
  return groups.map((g) => [...g].map((ch) => {
    if (/\d/.test(ch)) return digitsToWords(ch);
    if (ch === '+') return 'زائد';
    return LETTER_NAMES[ch.toUpperCase()] ?? ch;
  }).join(' ')).join(apart ? ' ' : '، ');
}

// Patterns that are references whatever comes before them.
/** IBAN: two letters, two check digits, then groups (SA03 8000 0000 6080 1016 7519). */
export const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b/g;
/** A masked card number: "**** 4821", "•••• •••• 4821", "xxxx-4821" (not bold markdown: **4500**). */
export const MASKED = /(?:[*•xX]{3,}[ -]?){1,4}(\d{4})\b(?!\*)/g;
/** Flight numbers: EK202, SV1234, MS985 (with a space only after a keyword such as رحلة). */
export const FLIGHT = /(?<![\p{L}\d])([A-Z]{2}|[A-Z]\d|\d[A-Z])( ?)(\d{2,4})(?![\p{L}\d])/gu;
/** PNR-style codes: six capitals and digits with at least two letters and one digit. */
export const PNR = /(?<![\p{L}\d])(?=[A-Z0-9]{6}(?![\p{L}\d]))(?=[A-Z]*\d)(?=\d*[A-Z]\d*[A-Z])[A-Z0-9]{6}(?![\p{L}\d])/gu;
/** International phones: +971 4 555 0199, +966501234567. */
export const PHONE = /\+\d{1,3}(?:[ -]?\d{1,4}){2,5}(?![\dA-Za-z]|[.,]\d)/g;
/** Long digit runs, grouped or not (seven digits or more), and numbers with a leading zero. */
export const LONG_DIGITS = /(?<![\d.,:\p{L}])(?:\d{7,}|0\d{2,}(?:[ -]\d{2,})*|\d{2,4}(?:[ -]\d{3,4}){2,}|\d{3}[ -]\d{4})(?![\d.,:]?\d)/gu;
