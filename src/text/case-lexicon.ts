/**
 * The words that give a counted number its case from before it, as call-centre replies use them:
 * verbs whose object the number is (accusative: "حجزنا لك تذكرتين", "يستغرق التفعيل ساعتين")
 * and their verbal nouns, which take the number as the second term of a
 * construct (genitive: "تم حجز تذكرتين", "بعد تحويل مئتي ريال").
 *
 * To extend: add a `VerbEntry` to `VERBS` (past, present and imperative of the third person
 * masculine singular, and the masdar); every conjugated form a reply may write is derived from
 * them. A verb that is transitive in some senses only (يدخل "enters" / أدخل "type in") is safer
 * listed by the forms that are always transitive: leave the ambiguous form out.
 */

/** A verb that takes a counted number as its object, with the forms its conjugations are derived from. */
export interface VerbEntry {
  /** Past, third person masculine singular (حجز، أضاف). */
  past: string;
  /** The stem the past's subject suffixes attach to, when it differs (أضاف → أضفنا، أضفت). @default past */
  pastStem?: string;
  /** Present, third person masculine singular (يحجز، يضيف); left out when that form is ambiguous. */
  present?: string;
  /** Imperative, masculine singular (احجز، أضف). */
  imperative?: string;
  /** Its verbal noun (حجز، إضافة): "تم حجز تذكرتين" puts the number in the genitive. */
  masdar?: string;
  /** Takes a person and then the number as two objects (يمنحك عشرين نقطةً): its forms also with ـك، ـكم. */
  twoObjects?: boolean;
}

/** Verbs of call-centre replies whose object a counted number is. */
export const VERBS: VerbEntry[] = [
  { past: 'حجز', present: 'يحجز', imperative: 'احجز', masdar: 'حجز' },
  { past: 'استغرق', present: 'يستغرق', masdar: 'استغراق' },
  { past: 'تضمن', present: 'يتضمن' },
  { past: 'شمل', present: 'يشمل' },
  { past: 'ضم', present: 'يضم' },
  { past: 'غطى', pastStem: 'غطي', present: 'يغطي', masdar: 'تغطية' },
  { past: 'دفع', present: 'يدفع', imperative: 'ادفع', masdar: 'دفع' },
  { past: 'سدد', present: 'يسدد', imperative: 'سدد', masdar: 'سداد' },
  { past: 'حول', present: 'يحول', imperative: 'حول', masdar: 'تحويل' },
  { past: 'استلم', present: 'يستلم', imperative: 'استلم', masdar: 'استلام' },
  { past: 'أرسل', present: 'يرسل', imperative: 'أرسل', masdar: 'إرسال' },
  { past: 'شحن', present: 'يشحن', imperative: 'اشحن', masdar: 'شحن' },
  { past: 'خصم', present: 'يخصم', imperative: 'اخصم', masdar: 'خصم' },
  { past: 'أضاف', pastStem: 'أضف', present: 'يضيف', imperative: 'أضف', masdar: 'إضافة' },
  { past: 'فعل', present: 'يفعل', imperative: 'فعل', masdar: 'تفعيل' },
  { past: 'انتظر', present: 'ينتظر', imperative: 'انتظر', masdar: 'انتظار' },
  // "اضغط 2 ثانية", "انقر 3 مرات": presses and their time are the verb's object (ضغط is also the masdar: "بعد ضغط ثلاث مرات").
  { past: 'ضغط', present: 'يضغط', imperative: 'اضغط', masdar: 'ضغط' },
  { past: 'نقر', present: 'ينقر', imperative: 'انقر', masdar: 'نقر' },
  { past: 'أدخل', imperative: 'أدخل', masdar: 'إدخال' },
  { past: 'كتب', imperative: 'اكتب' },
  { past: 'سحب', present: 'يسحب', imperative: 'اسحب', masdar: 'سحب' },
  { past: 'أودع', present: 'يودع', imperative: 'أودع', masdar: 'إيداع' },
  { past: 'احتاج', pastStem: 'احتج', present: 'يحتاج' },
  { past: 'تطلب', present: 'يتطلب' },
  { past: 'كلف', present: 'يكلف' },
  { past: 'ساوى', present: 'يساوي' },
  { past: 'بلغ', present: 'يبلغ' },
  { past: 'استخدم', present: 'يستخدم', imperative: 'استخدم', masdar: 'استخدام' },
  { past: 'استهلك', present: 'يستهلك', masdar: 'استهلاك' },
  { past: 'وفر', present: 'يوفر', imperative: 'وفر', masdar: 'توفير' },
  { past: 'كسب', present: 'يكسب', imperative: 'اكسب', masdar: 'كسب' },
  { past: 'ربح', present: 'يربح', imperative: 'اربح' },
  { past: 'منح', present: 'يمنح', imperative: 'امنح', masdar: 'منح', twoObjects: true },
  { past: 'أعطى', pastStem: 'أعطي', present: 'يعطي', imperative: 'أعط', masdar: 'إعطاء', twoObjects: true },
  { past: 'اشترى', pastStem: 'اشتري', present: 'يشتري', imperative: 'اشتر', masdar: 'شراء' },
  { past: 'جمع', present: 'يجمع', imperative: 'اجمع', masdar: 'جمع' },
  { past: 'صرف', present: 'يصرف', imperative: 'اصرف', masdar: 'صرف' },
  { past: 'استرد', present: 'يسترد', imperative: 'استرد', masdar: 'استرداد' },
  { past: 'سجل', present: 'يسجل', imperative: 'سجل', masdar: 'تسجيل' },
  { past: 'نفذ', present: 'ينفذ', imperative: 'نفذ', masdar: 'تنفيذ' },
  { past: 'رصد', present: 'يرصد', masdar: 'رصد' },
  { past: 'أصدر', present: 'يصدر', imperative: 'أصدر', masdar: 'إصدار' },
  { past: 'ألغى', pastStem: 'ألغي', present: 'يلغي', imperative: 'ألغ', masdar: 'إلغاء' },
  { past: 'مدد', present: 'يمدد', imperative: 'مدد', masdar: 'تمديد' },
  { past: 'جدد', present: 'يجدد', imperative: 'جدد', masdar: 'تجديد' },
  { past: 'استبدل', present: 'يستبدل', imperative: 'استبدل', masdar: 'استبدال' },
  { past: 'طلب', present: 'يطلب', imperative: 'اطلب', masdar: 'طلب' },
  { past: 'قدم', present: 'يقدم', imperative: 'قدم', masdar: 'تقديم' },
  { past: 'حمل', present: 'يحمل', imperative: 'حمل', masdar: 'تحميل' },
];

/**
 * Words after which a number is accusative without being a listed verb's object: a delay's
 * length is a time adverbial ("متأخرة خمسًا وأربعين دقيقةً"), and a few verbs whose number follows
 * a preposition-less complement in replies (ستحصل).
 */
export const ACCUSATIVE_WORDS = ['متأخرة', 'متأخر', 'تأخرت', 'تأخر', 'ستتأخر', 'سيتأخر', 'تتأخر', 'يتأخر', 'ستحصل', 'تحصل'];

/**
 * Nouns that complete a counted noun as the second term of a construct ("14 يوم عمل" → أربعة
 * عشر يومَ عمل, "2 يوم عمل" → يوما عمل): the counted noun then loses its tanween or its dual nun.
 * Nouns only: an adjective after the counted noun (دقيقة دولية) is no construct.
 */
export const CONSTRUCT_COMPLEMENTS = [
  'عمل', 'انتظار', 'اتصال', 'مكالمات', 'تأخير', 'سفر', 'إجازة', 'عطلة', 'راحة', 'تدريب', 'دراسة', 'تجربة', 'ضمان',
  'صيانة', 'إنترنت', 'بيانات', 'تخزين', 'توصيل', 'استخدام', 'تجوال', 'دوام', 'إقامة', 'اشتراك', 'خدمة',
  'تأكيد', 'تذكير', 'تحقق',
];

const SUBJECT_SUFFIXES = ['ت', 'نا', 'تم', 'وا'];
const PRESENT_PREFIXES = ['ي', 'ت', 'ن', 'أ'];

/** Every written form of a verb entry a reply may put before its object (without و/ف). */
export function verbForms(e: VerbEntry): string[] {
  const stem = e.pastStem ?? e.past;
  const forms = [e.past, `${e.past}ت`, ...SUBJECT_SUFFIXES.map((s) => `${stem}${s}`)];
  if (e.past.endsWith('ى')) forms.push(`${e.past.slice(0, -1)}ت`, `${e.past.slice(0, -1)}وا`);
  if (e.present) {
    const base = e.present.slice(1);
    for (const p of PRESENT_PREFIXES) forms.push(`${p}${base}`, `س${p}${base}`);
    forms.push(`ي${base}ون`, `ت${base}ون`, `ت${base}ين`);
  }
  if (e.imperative) forms.push(e.imperative, `${e.imperative}ي`, `${e.imperative}وا`);
  return e.twoObjects ? forms.flatMap((f) => [f, `${f}ك`, `${f}كم`]) : forms;
}
