/**
 * The words callers use for numbers, in MSA and the Gulf, Egyptian, Levantine and Maghrebi
 * dialects, as they look after `normalizeForMatch` (no hamza on alef, ة written ه, ى written ي).
 * Sources for the dialect forms: the parsers' page in docs/arabic-parsing.md.
 */

/** 0–10 and their dialect and gender forms. */
export const UNIT_WORDS: Record<string, number> = {
  'صفر': 0, 'زيرو': 0, 'سفر': 0,
  'واحد': 1, 'واحده': 1, 'وحده': 1, 'وحد': 1,
  'اثنين': 2, 'اثنان': 2, 'اتنين': 2, 'تنين': 2, 'ثنين': 2, 'اثنتين': 2, 'اثنتان': 2, 'ثنتين': 2, 'تنتين': 2,
  'ثلاث': 3, 'ثلاثه': 3, 'تلات': 3, 'تلاته': 3, 'ثلاثا': 3,
  'اربع': 4, 'اربعه': 4, 'اربعا': 4,
  'خمس': 5, 'خمسه': 5,
  'ست': 6, 'سته': 6, 'سطه': 6,
  'سبع': 7, 'سبعه': 7,
  'ثمان': 8, 'ثماني': 8, 'ثمانيه': 8, 'تمان': 8, 'تمانيه': 8, 'تمنيه': 8, 'ثمنيه': 8, 'تماني': 8,
  // Levantine تمانة (tmāne): the 8 was skipped, so a digit went missing. Not تمنة (tmēne): it is
  // also تمنه "its price" (تمنه خمسين جنيه), which must stay no number.
  'تمانه': 8,
  'تسع': 9, 'تسعه': 9,
  'عشر': 10, 'عشره': 10,
  // Maghrebi: Moroccan جوج/زوج (2), ربعة (4), تسعود (9) (Harrell, A Short Reference Grammar of
  // Moroccan Arabic, 1962, numerals; Caubet, L'arabe marocain, 1993); Algerian زوج and Tunisian
  // زوز (2) (Wiktionary, "زوز", Tunisian Arabic). زوج read bare or after و only: الزوج is "the husband".
  'جوج': 2, 'زوج': 2, 'زوز': 2, 'ربعه': 4, 'تسعود': 9,
  // English digits, as callers in the Gulf and the Levant dictate a number ("zero five five…"):
  // in the Latin script of a mixed transcript (the service's asr-en-ar model), or in Arabic
  // letters where no Arabic word is written so (فايف، سكس، سيفن، ناين; not ون، تو "just now"، ثري
  // "rich"، فور "upon", which stay words).
  'zero': 0, 'one': 1, 'two': 2, 'three': 3, 'four': 4, 'five': 5, 'six': 6, 'seven': 7, 'eight': 8, 'nine': 9,
  'فايف': 5, 'سكس': 6, 'سيفن': 7, 'ناين': 9,
};

/** Number words read only as said or after و: with ال or بـ they are other words (الزوج). */
export const BARE_ONLY = new Set(['زوج']);

/** Units that occur only before عشر in MSA teens (أحد عشر، اثنا عشر، إحدى عشرة). */
export const TEEN_UNITS: Record<string, number> = { 'احد': 1, 'احدي': 1, 'اثنا': 2, 'اثني': 2, 'اثنتا': 2, 'اثنتي': 2 };

export const TENS_WORDS: Record<string, number> = {
  'عشرين': 20, 'عشرون': 20,
  'ثلاثين': 30, 'ثلاثون': 30, 'تلاتين': 30, 'تلتين': 30,
  'اربعين': 40, 'اربعون': 40, 'ربعين': 40, // ربعين: Moroccan (Harrell 1962)
  'خمسين': 50, 'خمسون': 50,
  'ستين': 60, 'ستون': 60,
  'سبعين': 70, 'سبعون': 70,
  'ثمانين': 80, 'ثمانون': 80, 'تمانين': 80, 'ثمنين': 80,
  'تسعين': 90, 'تسعون': 90,
};

/** The hundreds as one word: مية/ميه/مئة (100), ميتين (200), تلتمية, خمسمية… */
export const HUNDRED_WORDS: Record<string, number> = {
  'مئه': 100, 'مائه': 100, 'ميه': 100, 'مايه': 100, 'ميت': 100,
  'مئتين': 200, 'مئتان': 200, 'مئتا': 200, 'مئتي': 200, 'مائتا': 200, 'مائتي': 200, 'مائتين': 200, 'مائتان': 200, 'ميتين': 200, 'متين': 200, 'ميتان': 200,
};

/** Stems before مية/مئة (ثلاثمئة، تلتمية، ربعمية، تمنمية…). */
export const HUNDRED_STEMS: Record<string, number> = {
  'ثلاث': 3, 'ثلاثه': 3, 'ثلث': 3, 'تلت': 3, 'تلات': 3, 'تلتم': 3,
  'اربع': 4, 'ربع': 4, 'اربعه': 4,
  'خمس': 5, 'خمسه': 5, 'ست': 6, 'سته': 6, 'سبع': 7, 'سبعه': 7,
  'ثمان': 8, 'ثماني': 8, 'ثمن': 8, 'تمن': 8, 'تمان': 8, 'تسع': 9, 'تسعه': 9,
};

/** Stems of the one-word teens: Egyptian خمستاشر، Levantine خمستعش، Gulf خمسطعش. */
export const TEEN_STEMS: Record<string, number> = {
  'احد': 1, 'حد': 1, 'احدا': 1,
  'اتن': 2, 'اثن': 2, 'ثن': 2, 'اطن': 2, 'طن': 2, 'اتنا': 2,
  'تلت': 3, 'تلات': 3, 'ثلث': 3, 'ثلاث': 3, 'ثل': 3, 'تل': 3, 'طل': 3, // طلطاش: Moroccan (Harrell 1962)
  'اربع': 4, 'ارب': 4, 'ربع': 4,
  'خمس': 5, 'ست': 6, 'سط': 6, 'س': 6,
  'سبع': 7, 'تمن': 8, 'ثمن': 8, 'تمان': 8, 'ثمان': 8, 'تسع': 9,
};

/** Thousands, millions, milliards (singular, dual, plural, the colloquial تلاف after 3–10). */
export const SCALE_WORDS: Record<string, { scale: number; times: number }> = {
  'الف': { scale: 1e3, times: 1 }, 'الفين': { scale: 1e3, times: 2 }, 'الفان': { scale: 1e3, times: 2 },
  'الاف': { scale: 1e3, times: 1 }, 'الوف': { scale: 1e3, times: 1 }, 'تلاف': { scale: 1e3, times: 1 }, 'لاف': { scale: 1e3, times: 1 },
  'الفا': { scale: 1e3, times: 2 }, 'الفي': { scale: 1e3, times: 2 }, 'مليون': { scale: 1e6, times: 1 }, 'مليونا': { scale: 1e6, times: 2 }, 'مليونين': { scale: 1e6, times: 2 }, 'مليونان': { scale: 1e6, times: 2 }, 'ملايين': { scale: 1e6, times: 1 },
  'مليار': { scale: 1e9, times: 1 }, 'مليارين': { scale: 1e9, times: 2 }, 'مليارات': { scale: 1e9, times: 1 },
};

/** Fractions joined to a number ("ألف ونص" → 1500, "ربع مليون" → 250000). */
export const FRACTION_WORDS: Record<string, number> = { 'نص': 0.5, 'نصف': 0.5, 'ربع': 0.25, 'ثلث': 1 / 3, 'تلت': 1 / 3 };

/** "دبل خمسة" → 55: the English phone-number habit ("double five") as Gulf callers borrow it. */
export const REPEAT_WORDS: Record<string, number> = { 'دبل': 2, 'دابل': 2, 'دوبل': 2, 'double': 2, 'تريبل': 3, 'ترابل': 3, 'triple': 3 };

/** Eastern Arabic (٠–٩) and Persian (۰–۹) digits to ASCII; Arabic separators ٬ ٫ to , and . */
export function asciiDigits(text: string): string {
  return text
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06F0-\u06F9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/\u066C/g, ',')
    .replace(/\u066B/g, '.');
}
