/**
 * Yes, no, "say again" and "I don't know" as callers say them in MSA, Gulf, Egyptian, Levantine
 * and Maghrebi Arabic, written as `normalizeWord` leaves them (no hamza on alef, ة as ه, ى as ي).
 * Sources: docs/arabic-parsing.md. The Maghrebi forms: Harrell, A Short Reference Grammar of
 * Moroccan Arabic (1962) and A Dictionary of Moroccan Arabic (1966); Caubet, L'arabe marocain
 * (1993); Wiktionary's Moroccan, Algerian and Tunisian Arabic entries (واخا، واه، إييه، باهي).
 */

/** Words that answer yes on their own. */
export const YES_WORDS = new Set([
  'نعم', 'اجل', 'بلي', 'ايوه', 'ايوا', 'ايو', 'اي', 'ايي', 'صح', 'صحيح', 'صحيحه', 'مضبوط', 'مظبوط', 'بالضبط', 'بالظبط', 'بالزبط', 'بالزبت',
  'تمام', 'تمم', 'موافق', 'موافقه', 'ماشي', 'زين', 'حاضر', 'ابشر', 'اوكي', 'اوكيه', 'اوك', 'ok', 'okay', 'yes', 'yeah', 'yep', 'يس', 'يب',
  'صحيحا', 'مظبوطه', 'مضبوطه',
  // Levantine منيح "good, fine" answers "is that right?" as Gulf زين does ("مش منيح" is no).
  'منيح', 'منيحه',
  // Maghrebi: واخا "all right" (Moroccan), واه and إييه "yes" (Moroccan, Algerian).
  'واخا', 'واخه', 'واه', 'اييه',
]);

/**
 * Words that say yes only when nothing says no: hesitations and intensifiers. "آه" is yes in
 * Egyptian and Levantine but also a hesitation ("اه لا"); "أكيد"/"طبعًا" strengthen a "لا" too.
 */
export const WEAK_YES_WORDS = new Set([
  'اه', 'اها', 'ايه', 'طيب', 'اكيد', 'طبعا', 'بالطبع', 'بالتاكيد', 'والله', 'ياريت', 'كده', 'كدا', 'كذا', 'هيك', 'ماشي',
  // Maghrebi: صافي "fine, that's it" (Moroccan), باهي "good, OK" (Tunisian, Algerian): agreement, or a close.
  'صافي', 'باهي',
  // Emirati and Kuwaiti هيه "yes"; elsewhere a spelling of هي "she", so weak.
  'هيه',
]);

/** Words that answer no on their own. */
export const NO_WORDS = new Set(['لا', 'لاا', 'كلا', 'لع', 'no', 'nope', 'نو', 'ابدا', 'ابد', 'غلط', 'خطا', 'مو', 'مش', 'مب', 'موب', 'مهو', 'مهوب', 'مي']);

/** Negators that turn a yes word after them into no ("مو صحيح", "مش مظبوط", "غير صحيح"). */
export const NEGATORS = new Set(['مو', 'مش', 'مب', 'موب', 'مهو', 'مهوب', 'ما', 'ليس', 'ليست', 'غير', 'مي', 'مانو', 'مانه']);

/** Phrases that mean yes although they hold a negator ("no problem", "no objection"). */
export const YES_PHRASES = [
  'ما في مشكله', 'مافي مشكله', 'مفيش مشكله', 'ما فيه مشكله', 'مش مشكله', 'مو مشكله', 'لا مشكله', 'لا مانع', 'ما عندي مانع', 'ماعندي مانع',
  'معنديش مانع', 'ما في مانع', 'ما يخالف', 'مايخالف', 'لا باس', 'ما عليه', 'هو كذا', 'هو ذا', 'اي نعم', 'هذا صحيح', 'هذا هو', 'هو هذا',
  'هو ده', 'هو هيك', 'ميه بالميه', 'ميه ميه',
  // ما في written as one word (مافي), as with مشكلة; Gulf على راسي "on my head", gladly.
  'مافي مانع', 'ما فيه مانع', 'مافيه مانع', 'مافيه مشكله', 'علي راسي',
  // "ولا يهمك" / "لا يهمك", "never mind, don't worry": agreement, though it holds لا.
  'ولا يهمك', 'لا يهمك', 'ولا يهمكم', 'لا يهمكم', 'ولا يهمك ابدا',
  // "I wish (so)", yes please, written in two words as often as in one (ياريت).
  'يا ريت',
];

/**
 * "I want (it)": yes only as the last word of the answer ("أريد", "إيه أبيه"); with something
 * after it the caller wants something else ("أريد التحدث مع موظف"). "ما أريد" is a no phrase.
 */
export const WANT_WORDS = new Set([
  'اريد', 'اريده', 'اريدها', 'ابي', 'ابيه', 'ابيها', 'ابغي', 'ابغا', 'ابغاه', 'ابغيه', 'ابغاها', 'بدي', 'بديه', 'بدياه', 'عايز', 'عايزه', 'عاوز', 'عاوزه',
  // Moroccan بغيت "I want(ed)".
  'بغيت', 'بغيتو',
]);

/** Phrases that mean no. */
export const NO_PHRASES = ['لا شكرا', 'ليس هذا', 'ليس كذلك', 'مش هو ده', 'مو هو هذا', 'مب هو هذا', 'مش هو دا', 'مو هذا', 'مش هذا', 'مش ده', 'مب هذا', 'مش هو', 'مو هو', 'مب هو', 'ما ابي', 'مابي', 'ما ابغي', 'مابغي', 'ما بدي', 'مابدي', 'مش عايز', 'مش عاوز', 'لا اريد', 'ما اريد', 'مااريد', 'ما في داعي', 'مافي داعي', 'ما له داعي', 'ماله داعي', 'مالوش لازمه',
  // Moroccan: "I don't want".
  'ما بغيتش', 'مابغيتش',
  // "No need": Egyptian بلاش، مالوش لزوم (Badawi & Hinds 1986), Gulf ما يحتاج (Holes 2010), Levantine
  // ما في لزوم، ما له لزوم (Cowell 1964), and "I don't need (it)" with each dialect's negation.
  'بلاش', 'مالوش لزوم', 'ملوش لزوم', 'ما له لزوم', 'ماله لزوم', 'ما في لزوم', 'مافي لزوم', 'ما يحتاج', 'مايحتاج', 'ما احتاج', 'ما نحتاج',
  'ما نحتاجش', 'ماني محتاج', 'ماني محتاجه', 'مانيش محتاج', 'مانيش محتاجه'];

/** The caller asks to hear it again. */
export const REPEAT_PHRASES = [
  'عيد', 'عيدي', 'عيدها', 'اعد', 'اعيد', 'تعيد', 'تعيدي', 'تعيدها', 'اعده', 'كرر', 'كرري', 'تكرر', 'كررها', 'مره ثانيه', 'مره تانيه',
  'مره كمان', 'كمان مره', 'ما سمعت', 'ماسمعت', 'ما سمعتك', 'مسمعتش', 'ما سمعتش', 'ما فهمت', 'مافهمت', 'مش فاهم', 'ما فهمتك', 'مفهمتش',
  'ايش قلت', 'وش قلت', 'شو قلت', 'شو قلتي', 'قلت ايه', 'قلتي ايه', 'بتقول ايه', 'بتقولي ايه', 'ايه اللي بتقوله', 'ايه اللي انت بتقوله', 'ايه اللي انتي بتقوليه', 'شو بتقول', 'وش تقول', 'ايش تقول', 'pardon',
  'say again', 'repeat', 'ما وضح', 'مو واضح', 'مش واضح',
  // Maghrebi: عاود "say it again" (عاود عافاك), شنو/اش قلتي "what did you say", ما فهمتش.
  'عاود', 'عاودي', 'عاودها', 'عاودلي', 'شنو قلتي', 'شنو قلت', 'اش قلتي', 'اش قلت', 'ما فهمتش',
];

/** Participles of not knowing, which agree with the caller: a woman says مش متأكدة، مش عارفة; several, مش متأكدين. */
const AGREEING = new Set(['عارف', 'متاكد', 'فاكر', 'متذكر']);

/** Each phrase ending in an `AGREEING` participle, with its feminine (ه) and plural (ين) forms too. */
const withAgreement = (phrases: string[]) => phrases.flatMap((p) => (AGREEING.has(p.split(' ').at(-1)!) ? [p, `${p}ه`, `${p}ين`] : [p]));

/** The caller does not know or is not sure. */
export const UNSURE_PHRASES = withAgreement([
  'ما اعرف', 'مااعرف', 'ما ادري', 'مدري', 'مادري', 'ما بعرف', 'مابعرف', 'مش عارف', 'معرفش', 'مش متاكد', 'مو متاكد',
  'مب متاكد', 'لست متاكدا', 'لست متاكده', 'لست متاكد', 'لا اعرف', 'لا ادري', 'يمكن', 'ربما', 'الله اعلم', 'مش فاكر', 'ما اتذكر', 'مش متذكر', 'ما بتذكر',
  'لا اتذكر', 'dont know', 'don t know', 'not sure', 'maybe',
  // Maghrebi: "I don't know" (Moroccan ما عرفتش، ما نعرف; Algerian and Tunisian ما نعرفش).
  'ما عرفتش', 'معرفتش', 'ما نعرف', 'ما نعرفش', 'منعرفش',
  // The negation ما…ش of Egypt and Palestine (ما بعرفش، ما اعرفش), one word in Morocco (ماعرفتش);
  // Gulf مو/مب before the participle; ماني، مانيش "I am not" (Gulf and Iraqi; Tunisian and
  // Algerian); "I don't remember" (ما أذكر) and "I have no idea" (ما عندي فكرة، Egyptian معنديش فكرة).
  'ما بعرفش', 'مابعرفش', 'ما اعرفش', 'مااعرفش', 'ماعرفتش', 'مو عارف', 'مب عارف', 'مو متذكر', 'مب متذكر', 'مو فاكر',
  'ماني عارف', 'ماني متاكد', 'مانيش عارف', 'مانيش متاكد', 'ما اذكر', 'لا اذكر', 'ما عندي فكره', 'ماعندي فكره', 'معنديش فكره', 'ما عنديش فكره',
]);

/** Words after which the caller corrects what they said: the answer after the last one counts. */
export const CORRECTION_WORDS = new Set(['اقصد', 'قصدي', 'اعني', 'قصدت', 'عفوا', 'اسف', 'اسفه', 'سوري', 'sorry', 'لحظه', 'بل']);
