/**
 * The case a number takes from the word before it. After a preposition or a noun it completes
 * (بنسبة، بقيمة، لمدة، خلال) it is genitive; after the verbs listed, whose object it is, it is
 * accusative; elsewhere (subject, predicate, after a pronoun-suffixed noun) nominative:
 * "تبقى يومان" but "قبل يومين", "بنسبة ثلاثين بالمئة", "يستغرق عشرين دقيقة".
 */
import type { GrammaticalCase } from './numbers.ts';

/** Prepositions and construct heads, without a ب/ل prefix (بنسبة is found as نسبة). */
export const GENITIVE_BEFORE = new Set([
  'في', 'من', 'إلى', 'الى', 'على', 'عن', 'مع', 'خلال', 'بعد', 'قبل', 'حتى', 'نحو', 'حوالي', 'حوالى', 'منذ', 'مذ', 'بين',
  'عند', 'لدى', 'قرابة', 'زهاء', 'فوق', 'تحت', 'دون', 'ضمن', 'عبر', 'لغاية', 'مقابل', 'بدل', 'حول', 'ب', 'بـ', 'ل', 'لـ', 'ك', 'كـ', 'سوى', 'غير', 'بضع', 'أكثر', 'أقل',
  'نسبة', 'قيمة', 'مبلغ', 'مدة', 'رسوم', 'غرامة', 'خصم', 'عام', 'سنة', 'معدل', 'سعر', 'تكلفة', 'مقدار', 'زيادة', 'حد',
  'مسافة', 'ارتفاع', 'وزن', 'عمر', 'بحدود', 'حدود', 'أجرة', 'فائدة', 'مجموع', 'إجمالي', 'رصيد', 'يوم', 'أصل', 'غضون', 'تاريخ', 'كل', 'أول', 'آخر',
  // Verbal nouns heading a construct: "تم تحويل مئتي ريال".
  'إضافة', 'تحويل', 'سحب', 'إيداع', 'دفع', 'سداد', 'استرداد', 'شحن', 'إرسال', 'إلغاء', 'تمديد', 'استبدال', 'صرف', 'استلام',
]);

/** Verbs that take the number as their object, and words after which it is a time adverbial. */
export const ACCUSATIVE_BEFORE = new Set([
  'ادفع', 'ادفعي', 'تدفع', 'يدفع', 'ستدفع', 'دفعت', 'سدد', 'سددت', 'يستغرق', 'تستغرق', 'سيستغرق', 'ستستغرق', 'استغرق',
  'انتظر', 'انتظري', 'أدخل', 'ادخل', 'اكتب', 'أضف', 'اسحب', 'سحبت', 'حول', 'حوّل', 'حولت', 'أودع', 'أودعت', 'تحتاج',
  'يحتاج', 'ستحتاج', 'نحتاج', 'يتطلب', 'تتطلب', 'تكلف', 'يكلف', 'تكلّف', 'يكلّف', 'يساوي', 'تساوي', 'أرسل', 'أرسلنا',
  'خصمنا', 'أضفنا', 'يشمل', 'تشمل', 'يتضمن', 'تتضمن',
  // A delay's length is a time adverbial: "متأخرة خمسًا وأربعين دقيقة".
  'متأخرة', 'متأخر', 'تأخرت', 'تأخر', 'ستتأخر', 'سيتأخر', 'تتأخر', 'يتأخر',
  'صرفنا', 'صرفت', 'حجزنا', 'حجزت', 'استلمنا', 'استلمت', 'اشتريت', 'اشترينا', 'جمعت', 'جمعنا', 'ربحت', 'استخدمت', 'استهلكت', 'وفرت', 'وفّرت', 'كسبت', 'نمنحك', 'تمنحك', 'يمنحك', 'تربح', 'ستربح', 'اربح', 'ستحصل', 'تحصل',
]);

const PRONOUN_OBJECTS = /\s(?:لك|لكِ|لكم|لكما|لنا|له|لها|عليك|عليكم|منك|منكم|إليك|إليكم)\s*$/u;

/** The last word of `before` (the text just before a number) decides its case. */
export function caseBefore(before: string): GrammaticalCase {
  // "حجزنا لك تذكرتين": a pronoun after a preposition sits between the verb and its object.
  const m = before.replace(PRONOUN_OBJECTS, '').match(/(\S+)\s*$/);
  if (!m) return 'nominative';
  const w = m[1]!.replace(/[\u064B-\u0652]/g, '');
  if (/[.،,:؛!?؟()]$/.test(w)) return 'nominative';
  if (GENITIVE_BEFORE.has(w) || ACCUSATIVE_BEFORE.has(w)) return GENITIVE_BEFORE.has(w) ? 'genitive' : 'accusative';
  // بنسبة، لمدة، بقيمة: a preposition prefixed to a construct head.
  const unprefixed = w.replace(/^[وف]?[بلك]?(?=\p{L}{3})/u, '');
  if (GENITIVE_BEFORE.has(unprefixed) || GENITIVE_BEFORE.has(w.replace(/^[وف]/, ''))) return 'genitive';
  if (ACCUSATIVE_BEFORE.has(w.replace(/^[وف]/, ''))) return 'accusative';
  return 'nominative';
}
