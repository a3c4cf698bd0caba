import type { Gender, Noun } from './numbers.ts';

/**
 * The nouns an agent counts, so a number before them agrees: gender comes from the singular
 * (طلبات is counted as masculine because طلب is), the plural is the one 3–10 take, the dual and
 * the accusative are derived unless given. Users add their own with `nouns` in the normalizer
 * options. Unknown nouns fall back on `guessNoun`.
 */
export interface NounEntry {
  singular: string;
  plural: string;
  gender: Gender;
  /** @default derived from the singular (طلب → طلبان, رحلة → رحلتان) */
  dual?: string;
  /** @default derived from the singular (طلب → طلبًا, رحلة → رحلةً) */
  accusative?: string;
  invariant?: boolean;
}

const word = (w: string) => w.replace(/[\u064B-\u0652]/g, '');

function dualOf(singular: string): string {
  return singular.split(' ').map((w) => {
    if (w.endsWith('ة')) return `${w.slice(0, -1)}تان`;
    if (w.endsWith('ى')) return `${w.slice(0, -1)}يان`;
    return `${w}ان`;
  }).join(' ');
}

function accusativeOf(singular: string): string {
  return singular.split(' ').map((w) => {
    if (/[ةء]$/.test(w) && !/[اأ]ء$/.test(w)) return w.endsWith('ء') ? `${w}ًا` : `${w}ً`;
    if (/(?:اء|[ىاو])$/.test(w)) return w.endsWith('اء') ? `${w}ً` : w;
    return `${w}ًا`;
  }).join(' ');
}

export function makeNoun(e: NounEntry): Noun {
  return {
    singular: e.singular, plural: e.plural, gender: e.gender,
    dual: e.dual ?? (e.invariant ? e.singular : dualOf(e.singular)),
    accusative: e.accusative ?? (e.invariant ? e.singular : accusativeOf(e.singular)),
    ...(e.invariant ? { invariant: true } : {}),
  };
}

// singular, plural, gender. Chosen from banking, telecom, travel and government replies.
const BASE: [string, string, Gender][] = [
  // time
  ['ثانية', 'ثوانٍ', 'f'], ['دقيقة', 'دقائق', 'f'], ['ساعة', 'ساعات', 'f'], ['يوم', 'أيام', 'm'], ['ليلة', 'ليالٍ', 'f'],
  ['أسبوع', 'أسابيع', 'm'], ['شهر', 'أشهر', 'm'], ['سنة', 'سنوات', 'f'], ['عام', 'أعوام', 'm'],
  // banking
  ['حساب', 'حسابات', 'm'], ['بطاقة', 'بطاقات', 'f'], ['عملية', 'عمليات', 'f'], ['تحويل', 'تحويلات', 'm'],
  ['دفعة', 'دفعات', 'f'], ['قسط', 'أقساط', 'm'], ['فاتورة', 'فواتير', 'f'], ['قرض', 'قروض', 'm'], ['شيك', 'شيكات', 'm'],
  ['معاملة', 'معاملات', 'f'], ['مبلغ', 'مبالغ', 'm'], ['نقطة', 'نقاط', 'f'], ['فرع', 'فروع', 'm'], ['صراف', 'صرافات', 'm'],
  ['مستفيد', 'مستفيدين', 'm'], ['حركة', 'حركات', 'f'], ['إيداع', 'إيداعات', 'm'], ['سحب', 'سحوبات', 'm'],
  // telecom
  ['باقة', 'باقات', 'f'], ['خط', 'خطوط', 'm'], ['شريحة', 'شرائح', 'f'], ['رسالة', 'رسائل', 'f'], ['مكالمة', 'مكالمات', 'f'],
  ['اشتراك', 'اشتراكات', 'm'], ['عرض', 'عروض', 'm'], ['جهاز', 'أجهزة', 'm'], ['رقم', 'أرقام', 'm'], ['حرف', 'أحرف', 'm'],
  ['خانة', 'خانات', 'f'], ['تطبيق', 'تطبيقات', 'm'], ['إشعار', 'إشعارات', 'm'],
  // travel
  ['رحلة', 'رحلات', 'f'], ['تذكرة', 'تذاكر', 'f'], ['حقيبة', 'حقائب', 'f'], ['مقعد', 'مقاعد', 'm'], ['راكب', 'ركاب', 'm'],
  ['مسافر', 'مسافرين', 'm'], ['غرفة', 'غرف', 'f'], ['طفل', 'أطفال', 'm'], ['بالغ', 'بالغين', 'm'], ['ميل', 'أميال', 'm'],
  ['محطة', 'محطات', 'f'], ['تأشيرة', 'تأشيرات', 'f'],
  // government and service
  ['طلب', 'طلبات', 'm'], ['مخالفة', 'مخالفات', 'f'], ['شكوى', 'شكاوى', 'f'], ['وثيقة', 'وثائق', 'f'], ['مستند', 'مستندات', 'm'],
  ['موعد', 'مواعيد', 'm'], ['ملف', 'ملفات', 'm'], ['نسخة', 'نسخ', 'f'], ['صورة', 'صور', 'f'], ['شخص', 'أشخاص', 'm'],
  ['فرد', 'أفراد', 'm'], ['ورقة', 'أوراق', 'f'], ['خطوة', 'خطوات', 'f'], ['مرحلة', 'مراحل', 'f'], ['مرة', 'مرات', 'f'],
  ['محاولة', 'محاولات', 'f'], ['شحنة', 'شحنات', 'f'], ['طرد', 'طرود', 'm'], ['منتج', 'منتجات', 'm'], ['قطعة', 'قطع', 'f'],
  ['سؤال', 'أسئلة', 'm'], ['خيار', 'خيارات', 'm'], ['موظف', 'موظفين', 'm'], ['عميل', 'عملاء', 'm'], ['زيارة', 'زيارات', 'f'],
  ['جلسة', 'جلسات', 'f'], ['طابق', 'طوابق', 'm'], ['سيارة', 'سيارات', 'f'], ['مركبة', 'مركبات', 'f'], ['غرامة', 'غرامات', 'f'],
  ['بلاغ', 'بلاغات', 'm'], ['استفسار', 'استفسارات', 'm'], ['وحدة', 'وحدات', 'f'], ['مشكلة', 'مشكلات', 'f'], ['قسيمة', 'قسائم', 'f'],
  ['إجراء', 'إجراءات', 'm'], ['شرط', 'شروط', 'm'], ['مادة', 'مواد', 'f'], ['درجة', 'درجات', 'f'],
  ['كيلو', 'كيلوات', 'm'], ['متر', 'أمتار', 'm'], ['لتر', 'لترات', 'm'], ['كيلومتر', 'كيلومترات', 'm'], ['كيلوغرام', 'كيلوغرامات', 'm'],
  ['سنتيمتر', 'سنتيمترات', 'm'], ['مليمتر', 'مليمترات', 'm'], ['غرام', 'غرامات', 'm'],
];

/** Words after a number that are not what it counts. */
export const NOT_COUNTED = new Set([
  'في', 'من', 'إلى', 'الى', 'على', 'عن', 'مع', 'أو', 'او', 'و', 'ثم', 'حتى', 'بعد', 'قبل', 'خلال', 'منذ', 'فقط', 'تقريبا', 'تقريبًا',
  'أيضا', 'أيضًا', 'هو', 'هي', 'هذا', 'هذه', 'ذلك', 'تلك', 'التي', 'الذي', 'ما', 'لا', 'لم', 'لن', 'قد', 'إن', 'أن', 'كان', 'كانت',
  'تم', 'يتم', 'كل', 'لكل', 'بين', 'عند', 'لدى', 'صباحا', 'صباحًا', 'مساء', 'مساءً', 'ظهرا', 'ظهرًا', 'عصرا', 'عصرًا', 'ليلا', 'ليلًا',
  'فأكثر', 'فما', 'وما', 'بالمئة', 'بالمائة', 'بالمية', 'إذا', 'اذا', 'لو', 'كما', 'مثل', 'نعم', 'يا', 'عليك', 'لديك', 'لك', 'لكم',
]);

/** Loanword units counted without agreement in the noun (عشرة غيغابايت). */
const INVARIANT = ['غيغابايت', 'ميغابايت', 'تيرابايت', 'كيلوبايت', 'ميغابت', 'غيغابت', 'كيلوواط', 'واط', 'فولت'];

/** Abbreviations written after a number and the noun they stand for. */
export const UNIT_ABBREVIATIONS: Record<string, string> = {
  'كم': 'كيلومتر', 'km': 'كيلومتر', 'كغ': 'كيلوغرام', 'كجم': 'كيلوغرام', 'كلغ': 'كيلوغرام', 'kg': 'كيلوغرام',
  'غ': 'غرام', 'جم': 'غرام', 'سم': 'سنتيمتر', 'cm': 'سنتيمتر', 'ملم': 'مليمتر', 'مم': 'مليمتر', 'mm': 'مليمتر',
  'لتر': 'لتر', 'ل': 'لتر', 'GB': 'غيغابايت', 'جيجا': 'غيغابايت', 'غيغا': 'غيغابايت', 'جيجابايت': 'غيغابايت',
  'MB': 'ميغابايت', 'ميجا': 'ميغابايت', 'TB': 'تيرابايت', 'Mbps': 'ميغابت', 'ميجابت': 'ميغابت', 'Gbps': 'غيغابت',
  'kW': 'كيلوواط', 'W': 'واط', 'V': 'فولت',
};

/** The nouns the normalizer counts with agreement, found by any written form. */
export class Lexicon {
  private readonly forms = new Map<string, Noun>();

  constructor(extra: NounEntry[] = []) {
    for (const [singular, plural, gender] of BASE) this.add({ singular, plural, gender });
    for (const singular of INVARIANT) this.add({ singular, plural: singular, gender: 'm', invariant: true });
    for (const e of extra) this.add(e);
  }

  /** Adds a noun, found afterwards by each of its forms. */
  add(e: NounEntry): void {
    const n = makeNoun(e);
    // Every written form an LLM might put after a number finds the noun.
    const forms = [n.singular, n.plural, n.dual, n.accusative, n.plural.replace(/ٍ$/, ''), n.plural.replace(/ٍ$/, 'ي'), n.dual.replace(/ان$/, 'ين')];
    for (const f of forms) this.forms.set(word(f), n);
    const acc = word(n.accusative);
    this.forms.set(acc.endsWith('ا') ? acc : `${acc}ا`, n);
  }

  /** The noun a written form belongs to, if known. */
  get(form: string): Noun | undefined {
    return this.forms.get(word(form));
  }
}

// Verbal-noun patterns whose ـات plural belongs to a masculine singular (تحويلات، إشعارات،
// اجتماعات، استفسارات): the rest of the ـات plurals are taken as feminine sound plurals.
const MASCULINE_STEMS = /^(?:ت\p{L}\p{L}ي\p{L}|إ\p{L}\p{L}ا\p{L}|ا\p{L}ت\p{L}ا\p{L}|است\p{L}\p{L}ا\p{L}|ان\p{L}\p{L}ا\p{L})$/u;

/**
 * A sensible reading of a noun not in the lexicon, from its form: ـة is a feminine singular,
 * ـتان/ـتين its dual, ـات a sound plural (of a feminine noun, unless the stem is a masculine
 * verbal noun), anything else a masculine singular whose plural is unknown (kept as written).
 * Returns undefined when the word is no clear noun, so 1 and 2 are not reordered around it.
 */
export function guessNoun(raw: string): { noun: Noun; sure: boolean } {
  const w = word(raw).replace(/ا$/, '');
  if (w.endsWith('ة') && w.length >= 3) {
    const stem = w.slice(0, -1);
    return { noun: makeNoun({ singular: w, plural: `${stem}ات`, gender: 'f' }), sure: true };
  }
  if (/^\p{L}{2,}(?:تان|تين)$/u.test(w)) {
    const stem = w.slice(0, -3);
    return { noun: makeNoun({ singular: `${stem}ة`, plural: `${stem}ات`, gender: 'f' }), sure: true };
  }
  if (w.endsWith('ات') && w.length >= 5) {
    const stem = w.slice(0, -2);
    if (MASCULINE_STEMS.test(stem)) return { noun: makeNoun({ singular: stem, plural: w, gender: 'm' }), sure: true };
    return { noun: makeNoun({ singular: `${stem}ة`, plural: w, gender: 'f' }), sure: true };
  }
  // Unsure: only the number's own form changes; the word stays as written.
  return { noun: makeNoun({ singular: raw, plural: raw, gender: 'm', accusative: raw }), sure: false };
}
