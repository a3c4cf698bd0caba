/**
 * Words of dates and times as callers say them (normalized: no hamza on alef, ة as ه, ى as ي):
 * month names of the three calendars in use (Gregorian as in the Gulf and Egypt, the Levantine
 * names, Hijri), weekdays, relative days, ordinals and the periods of the day.
 */

/** Month names (one or two words) → [month 1–12, calendar]. */
export const MONTH_WORDS: readonly (readonly [string, number, 'gregory' | 'islamic-umalqura'])[] = [
  ...['يناير', 'فبراير', 'مارس', 'ابريل', 'مايو', 'يونيو', 'يوليو', 'اغسطس', 'سبتمبر', 'اكتوبر', 'نوفمبر', 'ديسمبر'].map((m, i) => [m, i + 1, 'gregory'] as const),
  ...[['يونيه', 6], ['يوليه', 7], ['اغسطوس', 8], ['فبراير', 2], ['ابريل', 4]].map(([m, i]) => [m as string, i as number, 'gregory'] as const),
  ...['كانون الثاني', 'شباط', 'اذار', 'نيسان', 'ايار', 'حزيران', 'تموز', 'اب', 'ايلول', 'تشرين الاول', 'تشرين الثاني', 'كانون الاول'].map((m, i) => [m, i + 1, 'gregory'] as const),
  ['كانون التاني', 1, 'gregory'], ['تشرين التاني', 11, 'gregory'],
  // The Maghreb's names, from the French in Tunisia and Algeria, from the Spanish and French in
  // Morocco and Mauritania (CLDR's Arabic locales ar_TN, ar_DZ, ar_MA, ar_MR). ماي is also Gulf
  // "water": a month only after a day, as صفر.
  ...[['جانفي', 1], ['فيفري', 2], ['افريل', 4], ['ماي', 5], ['جوان', 6], ['جويليه', 7], ['اوت', 8]].map(([m, i]) => [m as string, i as number, 'gregory'] as const),
  ...[['يوليوز', 7], ['غشت', 8], ['شتنبر', 9], ['نونبر', 11], ['دجنبر', 12], ['اغشت', 8], ['شتمبر', 9], ['دجمبر', 12]].map(([m, i]) => [m as string, i as number, 'gregory'] as const),
  ...[
    ['محرم', 1], ['صفر', 2], ['ربيع الاول', 3], ['ربيع اول', 3], ['ربيع الاخر', 4], ['ربيع الثاني', 4], ['ربيع التاني', 4], ['ربيع ثاني', 4],
    ['جمادي الاولي', 5], ['جمادي الاول', 5], ['جماد اول', 5], ['جمادي الاخره', 6], ['جمادي الثانيه', 6], ['جمادي الاخر', 6], ['جماد ثاني', 6],
    ['رجب', 7], ['شعبان', 8], ['رمضان', 9], ['شوال', 10], ['ذو القعده', 11], ['ذي القعده', 11], ['ذا القعده', 11], ['القعده', 11],
    ['ذو الحجه', 12], ['ذي الحجه', 12], ['ذا الحجه', 12], ['الحجه', 12],
  ].map(([m, i]) => [m as string, i as number, 'islamic-umalqura'] as const),
];

/** Weekdays, Sunday = 0 (as `Date.getUTCDay`). */
export const WEEKDAY_WORDS: Record<string, number> = {
  'الاحد': 0, 'الحد': 0, 'الاثنين': 1, 'الاتنين': 1, 'التنين': 1, 'الثنين': 1, 'الثلاثا': 2, 'الثلاثاء': 2, 'التلات': 2, 'التلاتا': 2, 'الثلوث': 2,
  'الاربعا': 3, 'الاربعاء': 3, 'الاربع': 3, 'الخميس': 4, 'الجمعه': 5, 'السبت': 6,
};

/** "الجاي" and its forms: the next one. */
export const NEXT_WORDS = new Set(['الجاي', 'الجايه', 'الياي', 'اليايه', 'القادم', 'القادمه', 'المقبل', 'المقبله', 'جاي', 'جايه', 'ياي', 'اليايه', 'قادم', 'الجديد']);
/** "الماضي" and its forms: the last one. */
// A feminine weekday or month agrees: `الجمعة اللي فاتت` (last Friday) was read as the next one.
export const LAST_WORDS = new Set(['الماضي', 'الماضيه', 'فات', 'فاتت', 'الفايت', 'الفايته', 'الفات', 'السابق', 'السابقه', 'اللي فات', 'اللي فاتت']);

/** Days from today. Gulf callers say `عقب` for "after" (`عقب باجر`, the day after tomorrow). */
export const RELATIVE_DAYS: [string, number][] = [
  ['عقب بكره', 2], ['عقب بكرا', 2], ['عقب باكر', 2], ['عقب باجر', 2], ['عقب الغد', 2],
  ['قبل البارحه', -2], ['اول البارحه', -2],
  // The day before yesterday with the short yesterday: Levantine أول مبارح (Cowell 1964, ʾawwal
  // mbāreḥ), Gulf and Tunisian أول البارح، قبل البارح, and Moroccan ولبارح (Harrell 1966, wəlbarəḥ):
  // they were yesterday (مبارح، البارح read alone), and ولبارح no day.
  ['اول مبارح', -2], ['قبل مبارح', -2], ['اول البارح', -2], ['قبل البارح', -2], ['ولبارح', -2], ['اولبارح', -2],
  ['بعد بكره', 2], ['بعد بكرا', 2], ['بعد باكر', 2], ['بعد باجر', 2], ['بعد غد', 2], ['بعد الغد', 2],
  ['اول امس', -2], ['اول امبارح', -2], ['قبل امس', -2], ['قبل امبارح', -2],
  // "بعد غدًا" as transcripts write it (the tanween's alif kept): two days, not "غدا" alone.
  ['بعد غدا', 2], ['عقب غدا', 2],
  // Gulf باچر: the affricate of Kuwaiti, Bahraini and Iraqi speech written with چ (Holes 2010, bāčir).
  ['عقب باچر', 2], ['بعد باچر', 2],
  // Tunisian and Algerian غدوة "tomorrow" (Wiktionary, Tunisian Arabic غدوة; Moroccan says غدا).
  ['بعد غدوه', 2], ['بعد غدوا', 2],
  ['بكره', 1], ['بكرا', 1], ['باكر', 1], ['باجر', 1], ['باچر', 1], ['غدوه', 1], ['غدوا', 1], ['غدا', 1], ['الغد', 1], ['غد', 1],
  ['اليوم', 0], ['النهارده', 0], ['النهاردا', 0], ['الليله', 0],
  ['امس', -1], ['امبارح', -1], ['البارحه', -1], ['البارح', -1], ['مبارح', -1],
];

/** Ordinals as said for days of the month, with the cardinal each stands for. */
export const ORDINAL_WORDS: Record<string, number> = {
  'الاول': 1, 'اول': 1, 'الحادي': 1, 'حادي': 1, 'الثاني': 2, 'التاني': 2, 'ثاني': 2, 'تاني': 2, 'الثالث': 3, 'التالت': 3, 'ثالث': 3, 'الرابع': 4, 'رابع': 4,
  'الخامس': 5, 'خامس': 5, 'السادس': 6, 'سادس': 6, 'السابع': 7, 'سابع': 7, 'الثامن': 8, 'التامن': 8, 'ثامن': 8, 'التاسع': 9, 'تاسع': 9, 'العاشر': 10, 'عاشر': 10,
  'العشرين': 20, 'والعشرين': 20, 'الثلاثين': 30, 'والثلاثين': 30,
};

/** A part of the day a caller names ("العصر", "بالليل"). */
export type PartOfDay = 'dawn' | 'morning' | 'noon' | 'afternoon' | 'sunset' | 'evening' | 'night';

/**
 * Two-word periods, joined into one word before parsing: "بعد الظهر" (after noon, p.m.) is the
 * afternoon, not noon; "قبل الظهر" (before noon, a.m.) the morning.
 */
export const PERIOD_PHRASES: Record<string, string> = {
  'بعد الظهر': 'بعد_الظهر', 'بعد الضهر': 'بعد_الظهر', 'عقب الظهر': 'بعد_الظهر', 'عقب الضهر': 'بعد_الظهر',
  'قبل الظهر': 'قبل_الظهر', 'قبل الضهر': 'قبل_الظهر',
  // Midnight, a time of its own: CLDR's Arabic day period for 00:00 (night1, منتصف الليل).
  'منتصف الليل': 'منتصف_الليل', 'نص الليل': 'منتصف_الليل', 'نصف الليل': 'منتصف_الليل',
};

/** Periods of the day: how an hour said with one becomes 0–23, and the time meant when no hour is said. */
export const DAY_PERIODS: Record<string, { kind: PartOfDay; alone: string }> = {
  // "After noon" alone: the first hour of the afternoon (13:00), as الظهرية.
  'بعد_الظهر': { kind: 'afternoon', alone: '13:00' }, 'قبل_الظهر': { kind: 'morning', alone: '09:00' },
  'الفجر': { kind: 'dawn', alone: '05:00' }, 'فجرا': { kind: 'dawn', alone: '05:00' },
  'الصبح': { kind: 'morning', alone: '09:00' }, 'الصباح': { kind: 'morning', alone: '09:00' }, 'صباحا': { kind: 'morning', alone: '09:00' }, 'صباح': { kind: 'morning', alone: '09:00' }, 'بدري': { kind: 'morning', alone: '08:00' }, 'am': { kind: 'morning', alone: '09:00' },
  'الظهر': { kind: 'noon', alone: '12:00' }, 'الضهر': { kind: 'noon', alone: '12:00' }, 'ظهرا': { kind: 'noon', alone: '12:00' }, 'الظهريه': { kind: 'noon', alone: '13:00' },
  'العصر': { kind: 'afternoon', alone: '16:00' }, 'عصرا': { kind: 'afternoon', alone: '16:00' }, 'العصريه': { kind: 'afternoon', alone: '16:00' }, 'pm': { kind: 'afternoon', alone: '16:00' },
  'المغرب': { kind: 'sunset', alone: '18:00' }, 'مغرب': { kind: 'sunset', alone: '18:00' }, 'المسا': { kind: 'evening', alone: '19:00' }, 'مسا': { kind: 'evening', alone: '19:00' }, 'مساءا': { kind: 'evening', alone: '19:00' }, 'مساء': { kind: 'evening', alone: '19:00' },
  'العشا': { kind: 'evening', alone: '20:00' }, 'العشاء': { kind: 'evening', alone: '20:00' },
  // Maghrebi العشية "the afternoon" (Harrell 1966, ʿšiya; Tunisian too), and فـ "in" glued to the
  // part of the day (Moroccan فالصباح، فالعشية، فالليل: Harrell 1962).
  'العشيه': { kind: 'afternoon', alone: '16:00' }, 'عشيه': { kind: 'afternoon', alone: '16:00' }, 'فالعشيه': { kind: 'afternoon', alone: '16:00' },
  'فالصباح': { kind: 'morning', alone: '09:00' }, 'فالصبح': { kind: 'morning', alone: '09:00' }, 'فالليل': { kind: 'night', alone: '21:00' },
  'منتصف_الليل': { kind: 'night', alone: '00:00' },
  'بالليل': { kind: 'night', alone: '21:00' }, 'الليل': { kind: 'night', alone: '21:00' }, 'ليلا': { kind: 'night', alone: '21:00' }, 'بليل': { kind: 'night', alone: '21:00' }, 'الليله': { kind: 'night', alone: '21:00' },
};

/** Clock hours as MSA says them, feminine ordinals ("الساعة العاشرة"), to cardinal words. */
export const HOUR_ORDINALS: Record<string, string> = {
  'الواحده': 'واحد', 'الثانيه': 'اثنين', 'الثالثه': 'ثلاثه', 'الرابعه': 'اربعه', 'الخامسه': 'خمسه', 'السادسه': 'سته', 'السابعه': 'سبعه',
  'الثامنه': 'ثمانيه', 'التاسعه': 'تسعه', 'العاشره': 'عشره', 'الحاديه': 'احدي', 'النصف': 'نص', 'الربع': 'ربع', 'الثلث': 'ثلث', 'ربعا': 'ربع', 'ثلثا': 'ثلث',
};

/** The word for o'clock, with its prefixes (الساعة، عالساعة، بالساعة). */
export const HOUR_WORD = /^(?:ع|ب|ل|في)?(?:ال)?ساعه$/;
