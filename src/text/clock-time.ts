/**
 * The clock time a caller says ("الساعة أربعة العصر" → 16:00, "تسعة ونص بالليل", "الظهر") and the
 * parts of the day it may lie in: what `parseDate` and `parseHour` read a time with. Rules:
 * docs/arabic-parsing.md#dates-and-times.
 */
import { DAY_PERIODS, HOUR_WORD, type PartOfDay } from './date-words.ts';
import { TEEN_UNITS } from './number-words.ts';
import { readSpoken } from './spoken-numbers.ts';
import type { ParsedDate } from './parse-date.ts';

/** A number word, or an MSA teen's first word (الحادية عشرة → احدي عشره). */
export const isNumberWord = (w: string) => w in TEEN_UNITS || readSpoken(w).some((i) => i.kind === 'number');

/** منتصف الليل، نص الليل as one word (PERIOD_PHRASES): midnight. */
const MIDNIGHT = 'منتصف_الليل';

const MINUTE_WORDS = new Set(['دقيقه', 'دقايق', 'دقائق', 'دقيقتين', 'دقيقتان']);

/** An hour said with a period word → 0–23. Without one: 1–6 afternoon, 7–12 as said. */
function hour24(h: number, period: string | undefined): number {
  const kind = period ? DAY_PERIODS[period]!.kind : undefined;
  if (h > 12) return h % 24;
  switch (kind) {
    case 'dawn': case 'morning': return h % 12;
    case 'noon': return h <= 5 ? h + 12 : h;
    case 'afternoon': case 'sunset': return h < 12 ? h + 12 : 12;
    case 'evening': return h < 12 ? h + 12 : 0;
    case 'night': return h === 12 ? 0 : h >= 5 ? h + 12 : h;
    // 0 is midnight, one time only ("0:30" keyed is 00:30, not 12:30).
    default: return h >= 1 && h <= 6 ? h + 12 : h;
  }
}

export const hhmm = (h: number, m: number) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;

/** A time found: `afterMidnight` when it is in the small hours of the night said ("اتناشر بالليل"). */
export interface FoundTime {
  time: string;
  afterMidnight: boolean;
  partOfDay?: PartOfDay;
  /** The hour was said 1–12, a reading of the 12-hour clock (9 is 09:00 or 21:00); 0 and 13–23 are one time. */
  twelve?: boolean;
  /** The words of an hour said with a period word it is not in (`ParsedDate.hourOutsidePart`); `time` is then the part's usual one. */
  outside?: string;
}

/** The clock time in the words (marking the words it used), or undefined. */
export function findTime(words: string[], used: boolean[]): FoundTime | undefined {
  const periodAt = words.findIndex((w, i) => !used[i] && w in DAY_PERIODS);
  const period = periodAt >= 0 ? words[periodAt] : undefined;
  let from = words.findIndex((w) => HOUR_WORD.test(w)) + 1;
  let to = from;
  if (from > 0) {
    while (to < words.length && (isNumberWord(words[to]!) || /^\d{1,2}:\d{2}$/.test(words[to]!) || ['و', 'الا', 'ربع', 'ثلث', 'تلت', 'نص'].includes(words[to]!) || MINUTE_WORDS.has(words[to]!))) to++;
  } else if (periodAt > 0) {
    // "٩ الصبح", "اربعة ونص العصر": the numbers just before the period word.
    to = periodAt;
    from = periodAt;
    while (from > 0 && (isNumberWord(words[from - 1]!) || /^\d{1,2}:\d{2}$/.test(words[from - 1]!) || ['و', 'الا'].includes(words[from - 1]!))) from--;
  } else {
    from = words.findIndex((w) => /^\d{1,2}:\d{2}$/.test(w));
    to = from + 1;
  }
  const said = from >= 0 ? words.slice(from, to) : [];
  if (!said.length) {
    if (!period) return undefined;
    used[periodAt] = true;
    // Midnight alone is an hour, the one that ends the day said (not a part of the day to ask the hour of).
    if (period === MIDNIGHT) return { time: '00:00', afterMidnight: true };
    return { time: DAY_PERIODS[period]!.alone, afterMidnight: false, partOfDay: DAY_PERIODS[period]!.kind };
  }
  let h: number;
  let m = 0;
  // h:mm, or h.mm with a point (the Arabic ٫ comes as one): "الساعة 7.30" is 7:30, not 7.3 hours
  // (07:18). A point between hours and minutes is as good as a colon (Hart's Rules, 11.3); it
  // is read so only after الساعة or before a part of the day, where the words hold a time.
  const numeral = said.find((w) => /^\d{1,2}[:.]\d{2}$/.test(w));
  const minus = said.indexOf('الا');
  if (numeral) [h, m] = numeral.split(/[:.]/).map(Number) as [number, number];
  else {
    const nums = readSpoken((minus >= 0 ? said.slice(0, minus) : said).join(' ')).filter((i) => i.kind === 'number');
    if (!nums.length) return undefined;
    const first = nums[0]!;
    const second = nums[1];
    h = Math.floor(first.value);
    m = Math.round((first.value - h) * 60);
    // A numeral takes no fraction word into it: "7 ونص" is 7 and a half (it gave the minute "0.5").
    if (second?.fraction && second.value < 1 && m === 0) m = Math.round(second.value * 60);
    // Minutes past the half or the quarter (Egyptian and Levantine "أربعة ونص وخمسة", 4:35), or past the hour.
    else if (second && !second.fraction) m = first.fraction ? m + second.value : second.value;
    if (minus >= 0) {
      const rest = said.slice(minus + 1);
      const less = rest.includes('ربع') ? 15 : rest.includes('ثلث') || rest.includes('تلت') ? 20 : (readSpoken(rest.join(' ')).find((i) => i.kind === 'number')?.value ?? 0);
      // Minutes to the hour, or to the half ("أربعة ونص إلا خمسة", 4:25); to one o'clock is from 12.
      const at = h * 60 + m - less;
      h = Math.floor(at / 60) || 12;
      m = at - Math.floor(at / 60) * 60;
    }
  }
  if (!(Number.isInteger(h) && Number.isInteger(m) && h >= 0 && h <= 24 && m >= 0 && m < 60)) return undefined;
  for (let i = from; i < to; i++) used[i] = true;
  if (from > 0 && HOUR_WORD.test(words[from - 1]!)) used[from - 1] = true;
  if (period && periodAt >= 0) used[periodAt] = true;
  const kind = period ? DAY_PERIODS[period]!.kind : undefined;
  const twelve = h >= 1 && h <= 12;
  // The period table's reading, or the other one when only that is in the part said.
  const h24 = period ? readingIn(hour24(h, period), m, twelve, spanOf(period)) : hour24(h, period);
  // Neither reading of the hour is in the part of the day said with it (the caller's words
  // contradict each other), or both are (12 a.m.): the hour is asked again, not guessed.
  // 12 is noon or midnight, whatever part it was said with: its hour is asked without the part.
  // 12 (noon or midnight) falls on the day of noon's reading, the same with ص as with م.
  if (h24 === undefined) return { time: h === 12 ? '12:00' : DAY_PERIODS[period!]!.alone, afterMidnight: false, partOfDay: h === 12 ? undefined : kind, outside: said.join(' ') };
  return { time: hhmm(h24, m), afterMidnight: (kind === 'night' || kind === 'evening') && h24 < 5, twelve };
}

/**
 * The hour (0–23) of `h:m` that lies in `spans`: `h` itself, or its other 12-hour reading when the
 * hour was said 1–12; undefined when neither does, or when both do (12 with the a.m. or p.m.
 * marker: "12 صباحًا" is midnight on a clock and noon to a caller who counts the morning to noon).
 */
function readingIn(h: number, m: number, twelve: boolean, spans: [number, number][]): number | undefined {
  const inside = (twelve ? [h, (h + 12) % 24] : [h]).filter((x) => spans.some(([a, b]) => x * 60 + m >= a && x * 60 + m <= b));
  return inside.length === 1 ? inside[0] : undefined;
}

export const minutesOf = (time: string) => {
  const [h, m] = time.split(':').map(Number) as [number, number];
  return h * 60 + m;
};

/** A word of each part of the day, whose hour rule (`hour24`) is that part's. */
export const PART_WORD: Record<PartOfDay, string> = {
  dawn: 'الفجر', morning: 'الصبح', noon: 'الظهر', afternoon: 'العصر', sunset: 'المغرب', evening: 'المسا', night: 'بالليل',
};

/**
 * The clock times each part of the day covers (minutes after midnight, inclusive spans) when a
 * caller gives the hour of a part named before: an hour said 1–12 is the one of its two readings
 * inside them (the period table's reading for every hour callers use with that part: docs/arabic-parsing.md).
 * The small hours are "الصبح" as callers say them ("الساعة ثلاثة الصبح"), up to noon itself, and
 * "الفجر" from one ("اتنين الفجر"). العصر runs to sunset, المغرب from sunset to nightfall: their
 * ends follow the sun across the League's cities and seasons (sunset about 16:45 in Doha in
 * December, 19:05 in Riyadh and about 20:00 in Cairo, on summer time, in June).
 */
const PART_SPANS: Record<PartOfDay, [number, number][]> = {
  dawn: [[1 * 60, 7 * 60]],
  // Noon itself is الظهر, midnight بالليل: "اتناشر الصبح" is neither (see docs/arabic-parsing.md).
  morning: [[1 * 60, 12 * 60 - 1]],
  noon: [[11 * 60, 17 * 60]],
  // After noon: 12 is noon itself, not its afternoon ("اتناشر العصر" is asked again).
  afternoon: [[12 * 60 + 1, 19 * 60]],
  sunset: [[16 * 60 + 30, 20 * 60 + 30]],
  evening: [[16 * 60, 24 * 60 - 1], [0, 0]],
  night: [[17 * 60, 24 * 60 - 1], [0, 5 * 60 - 1]],
};

/** العشا, the time of the night prayer: from nightfall (after 18:00 all year round in the Gulf) to midnight. */
const ISHA: [number, number][] = [[18 * 60, 24 * 60 - 1], [0, 0]];
/** Words whose span is narrower than their part of the day's, also when the part was named before the hour. */
const NAMED_SPANS: Record<string, [number, number][]> = { 'العشا': ISHA, 'العشاء': ISHA };

/** The 12-hour clock's a.m. and p.m. (midnight, 12 of the evening, with the p.m.). */
const AM: [number, number][] = [[0, 12 * 60]];
const PM: [number, number][] = [[12 * 60, 24 * 60 - 1], [0, 0]];
/** The colloquial المسا: the p.m. without noon's hour, which is never evening ("اتناشر المسا" is midnight). */
const EVENING_SAID: [number, number][] = [[13 * 60, 24 * 60 - 1], [0, 59]];

/**
 * Where an hour said in one breath with a period word may lie: its part of the day's span
 * (`PART_SPANS`), except the words that are the 12-hour clock's a.m. and p.m. markers
 * (صباحًا، مساءً: ص and م; am, pm; قبل الظهر، بعد الظهر), which take the whole half day ("الثالثة
 * مساءً" is 15:00), and العشا, the time of the night prayer: from nightfall, after 18:00 all year
 * round in the Gulf, to midnight.
 */
const SAID_SPANS: Record<string, [number, number][]> = {
  'صباحا': AM, 'am': AM, 'قبل_الظهر': AM,
  'مساء': PM, 'مساءا': PM, 'المسا': EVENING_SAID, 'مسا': EVENING_SAID, 'pm': PM, 'بعد_الظهر': PM,
  'العشا': ISHA, 'العشاء': ISHA,
};
const spanOf = (period: string) => SAID_SPANS[period] ?? PART_SPANS[DAY_PERIODS[period]!.kind];

/**
 * The reading of `found` inside `part`, or undefined when neither reading is (9:30 of the
 * afternoon). `word`, the word the part was named by, narrows it where its own span is narrower
 * (العشا: from nightfall, where the evening it belongs to starts at 16:00).
 */
export function inPart(found: FoundTime, part: PartOfDay, word?: string): FoundTime | undefined {
  const [h, m] = found.time.split(':').map(Number) as [number, number];
  const readings = found.twelve ? [h, (h + 12) % 24] : [h];
  const spans = word && NAMED_SPANS[word] ? NAMED_SPANS[word]! : PART_SPANS[part];
  const at = readings.find((x) => spans.some(([a, b]) => x * 60 + m >= a && x * 60 + m <= b));
  if (at === undefined) return undefined;
  return { time: hhmm(at, m), afterMidnight: (part === 'night' || part === 'evening') && at < 5 };
}

/** Units of a span of time from now, in minutes; a dual (ساعتين) takes no count before it. */
const SPAN_UNITS: Record<string, { minutes: number; dual?: true }> = {
  'ساعه': { minutes: 60 }, 'ساعات': { minutes: 60 }, 'ساعتين': { minutes: 120, dual: true }, 'ساعتان': { minutes: 120, dual: true },
  'دقيقه': { minutes: 1 }, 'دقايق': { minutes: 1 }, 'دقائق': { minutes: 1 }, 'دقيقتين': { minutes: 2, dual: true },
};
const PART_OF_HOUR: Record<string, number> = { 'نص': 30, 'نصف': 30, 'ربع': 15, 'ثلث': 20, 'تلت': 20 };
/** Words before a span that make it "from now": بعد، Gulf عقب, Levantine كمان ("كمان ساعة", in an hour). */
const FROM_NOW = new Set(['بعد', 'عقب', 'كمان']);

/**
 * The minutes from now of a span said ("بعد ساعتين" 120, "بعد ساعة ونص" 90, "بعد نص ساعة" 30, "بعد
 * عشر دقايق" 10, Levantine "كمان ساعة" 60), or undefined when none is. "بعد الساعة خمسة" (after
 * five o'clock) is a time, not a span.
 */
export function minutesFromNow(words: string[]): number | undefined {
  for (let i = 0; i < words.length; i++) {
    if (!FROM_NOW.has(words[i]!)) continue;
    let j = i + 1;
    if (words[j] === 'كمان') j++;
    if (words[j]! in PART_OF_HOUR && words[j + 1] === 'ساعه') return PART_OF_HOUR[words[j]!];
    let k = j;
    while (k < words.length && k - j < 3 && !(words[k]! in SPAN_UNITS)) k++;
    const unit = SPAN_UNITS[words[k] ?? ''];
    if (!unit || (unit.dual && k > j)) continue;
    const count = k > j ? readSpoken(words.slice(j, k).join(' ')) : [];
    if (k > j && !(count.length === 1 && count[0]!.kind === 'number')) continue;
    const n = count[0]?.kind === 'number' ? count[0].value : 1;
    let total = n * unit.minutes;
    if (unit.minutes >= 60) {
      const next = words[k + 1];
      if (next === 'ونص') total += 30;
      else if (next === 'وربع') total += 15;
      else if (next === 'الا' && words[k + 2] === 'ربع') total -= 15;
    }
    if (Number.isInteger(total) && total > 0 && total <= 48 * 60) return total;
  }
  return undefined;
}

