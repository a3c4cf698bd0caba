/**
 * `parseDate`: a day (and a time, if said) as a caller says it: Gregorian ("١٥ مارس", "15/3"),
 * Hijri ("١٥ رمضان", "الخامس عشر من شعبان ١٤٤٨"), relative ("بكرة", "بعد بكرة", "بعد يومين",
 * "الأحد الجاي", "الأسبوع الجاي", "نهاية الشهر", "أول الشهر") and times ("الساعة أربعة العصر" →
 * 16:00, "الساعة ٩ الصبح", "تسعة ونص بالليل", "الظهر"). Rules: docs/arabic-parsing.md#dates-and-times.
 */
import { addDays, compare, daysInMonth, fromHijri, isoDate, localNow, monthStart, toHijri, weekday, type Ymd } from './calendar.ts';
import { DAY_PERIODS, HOUR_ORDINALS, LAST_WORDS, MONTH_WORDS, NEXT_WORDS, ORDINAL_WORDS, PERIOD_PHRASES, RELATIVE_DAYS, WEEKDAY_WORDS, type PartOfDay } from './date-words.ts';
import { restatedValue } from './correction.ts';
import { readSpoken, tokenize } from './spoken-numbers.ts';
import { PART_WORD, findTime, hhmm, inPart, isNumberWord, minutesFromNow, minutesOf, type FoundTime } from './clock-time.ts';

/** A date the caller said: the Gregorian day, the time if one was said, and the calendar used. */
export interface ParsedDate {
  /** The day, Gregorian, `YYYY-MM-DD`. */
  date: string;
  /**
   * `HH:MM` (24 hours), when a time or a period of the day was said. An hour after midnight said
   * of a day's night ("بكرة الساعة اتناشر بالليل") is on the next date: 00:00 of the day after.
   */
  time?: string;
  /**
   * The part of the day said without an hour ("بكرة بعد الضهر", "العصر"): `time` is then that
   * part's usual time (docs/arabic-parsing.md), not one the caller said; ask for the hour if you
   * need one.
   */
  partOfDay?: PartOfDay;
  /**
   * An hour said with a part of the day it is not in, in one breath ("تسعة ونص العصر": neither
   * 09:30 nor 21:30 is the afternoon): the hour's words as heard (normalized). `time` is then
   * absent and `partOfDay` names the part said; ask the hour in that part (`dateTask` does)
   * rather than guess which the caller meant.
   */
  hourOutsidePart?: string;
  /** The calendar the caller used: Hijri dates are read back in Hijri. */
  calendar: 'gregory' | 'islamic-umalqura';
  /** The same day in the Umm al-Qura calendar, `YYYY-MM-DD`, when the caller said a Hijri date. */
  hijri?: string;
  /** The caller's words the date was read from. */
  text: string;
}

/** Where and when the caller is: what "today" is, and which way a yearless day goes. */
export interface ParseDateOptions {
  /** The moment "today" and "بكرة" count from. @default new Date() */
  now?: Date;
  /** The caller's time zone (IANA). @default 'Asia/Riyadh' */
  timeZone?: string;
  /** A day said without a year: the next one ('future', appointments) or the last ('past', birth dates). @default 'future' */
  prefer?: 'future' | 'past';
  /**
   * The hour (local, 0–12) the caller's day starts at: before it, in the small hours, the
   * caller's today is the day still lived, and every relative word counts from it (at 01:00 on
   * Friday, "بكرة" and "الجمعة" are Friday, "أمس" Wednesday), as people say them before they have
   * slept; "اليوم" booking ahead is the day starting (docs/arabic-parsing.md). 0: the calendar
   * date at every hour. @default 4
   */
  dayStartsAt?: number;
}

/** The parser's defaults. */
export const PARSE_DATE_DEFAULTS = { timeZone: 'Asia/Riyadh', prefer: 'future', dayStartsAt: 4 } as const;

/** A day of the month said before a month name: ordinals ("الخامس عشر") or cardinals. */
function dayBefore(words: string[], at: number, used: boolean[]): number | undefined {
  let i = at;
  while (i > 0 && ['من', 'في', 'شهر'].includes(words[i - 1]!)) i--;
  const said: string[] = [];
  while (i > 0 && !used[i - 1] && (words[i - 1]! in ORDINAL_WORDS || isNumberWord(words[i - 1]!) || words[i - 1] === 'و') && said.length < 4) said.unshift(words[--i]!);
  if (!said.length) return undefined;
  said.forEach((_, k) => (used[i + k] = true));
  if (said.some((w) => w in ORDINAL_WORDS)) {
    return said.reduce((sum, w) => sum + (ORDINAL_WORDS[w] ?? (/^عشر/.test(w) ? 10 : 0)), 0);
  }
  const nums = readSpoken(said.join(' ')).filter((n) => n.kind === 'number');
  return nums.at(-1)?.value;
}

/** A year said after the month: 1990, ١٤٤٨, "ألف وتسعمية وتسعين", or two digits. */
function yearAfter(words: string[], at: number, used: boolean[], hijri: boolean): number | undefined {
  let i = at;
  while (i < words.length && ['سنه', 'عام', 'من', 'لعام', 'لسنه'].includes(words[i]!)) i++;
  const said: string[] = [];
  while (i < words.length && (isNumberWord(words[i]!) || words[i] === 'و') && !used[i]) said.push(words[i++]!);
  const value = readSpoken(said.join(' ')).find((n) => n.kind === 'number')?.value;
  if (value === undefined || !Number.isInteger(value)) return undefined;
  for (let k = at; k < i; k++) used[k] = true;
  if (value >= 1000) return value;
  if (value < 100) return hijri ? 1400 + value : value > 40 ? 1900 + value : 2000 + value;
  return undefined;
}

/** The month said (name, or "شهر" + number), as [index of its first word, words, month, calendar]. */
function findMonth(words: string[], used: boolean[]): [number, number, number, ParsedDate['calendar']] | undefined {
  const joined = words.join(' ');
  for (const [name, month, calendar] of [...MONTH_WORDS].sort((a, b) => b[0].length - a[0].length)) {
    const pos = ` ${joined} `.indexOf(` ${name} `);
    if (pos < 0) continue;
    const at = joined.slice(0, pos).split(' ').filter(Boolean).length;
    if (used[at]) continue;
    // "صفر" is zero as often as the month, Gulf "ماي" water: a month only after a day.
    if ((name === 'صفر' || name === 'ماي') && !(at > 0 && (words[at - 1]! in ORDINAL_WORDS || isNumberWord(words[at - 1]!) || words[at - 1] === 'من'))) continue;
    return [at, name.split(' ').length, month, calendar];
  }
  const shahr = words.findIndex((w, i) => w === 'شهر' && i + 1 < words.length && isNumberWord(words[i + 1]!));
  if (shahr >= 0) {
    const m = readSpoken(words[shahr + 1]!).find((n) => n.kind === 'number')?.value;
    if (m && m >= 1 && m <= 12) return [shahr, 2, m, 'gregory'];
  }
  return undefined;
}

/** The next (or last) day from `today` with this month and day, this year or the next (last). */
function nearest(today: Ymd, m: number, d: number, prefer: 'future' | 'past'): Ymd {
  const same = { y: today.y, m, d };
  if (prefer === 'future') return compare(same, today) >= 0 ? same : { y: today.y + 1, m, d };
  return compare(same, today) <= 0 ? same : { y: today.y - 1, m, d };
}

const valid = (v: Ymd) => v.m >= 1 && v.m <= 12 && v.d >= 1 && v.d <= daysInMonth(v.y, v.m);

/** The words with each two-word period ("بعد الضهر") joined into the one word DAY_PERIODS knows. */
function joinPeriods(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const joined = PERIOD_PHRASES[`${words[i]} ${words[i + 1]}`];
    if (joined) {
      out.push(joined);
      i++;
    } else out.push(words[i]!);
  }
  return out;
}

/**
 * ص and م, the 12-hour clock's a.m. and p.m. as Arabic writes them (CLDR's Arabic `am`/`pm`:
 * "h:mm a", 00:30 is "12:30 ص", noon "12:00 م"), read as am and pm, only right after an hour:
 * elsewhere م is the era (ميلادي, "٢٠٢٧م") and ص a page.
 */
const AM_PM: Record<string, string> = { 'ص': 'am', 'م': 'pm' };
const hourBefore = (w: string | undefined) =>
  w !== undefined && (/^(?:\d|1\d|2[0-4])(?::\d{2})?$/.test(w) || ['ونص', 'وربع', 'وثلث', 'وتلت'].includes(w) || isNumberWord(w));

/**
 * The words of `text` as the parser reads them: normalized, MSA hour ordinals as numbers, two-word
 * periods joined, ص and م after an hour as am and pm, and Moroccan مع before an hour ("مع
 * التلاتة", at three: Harrell 1962) as الساعة.
 */
function wordsOf(text: string): string[] {
  const words = tokenize(text).map((w) => HOUR_ORDINALS[w] ?? (w.startsWith('و') ? (HOUR_ORDINALS[w.slice(1)] ? `و${HOUR_ORDINALS[w.slice(1)]}` : w) : w));
  return joinPeriods(words.map((w, i) => {
    if (w === 'مع' && words[i + 1] !== undefined && isNumberWord(words[i + 1]!)) return 'الساعه';
    return AM_PM[w] && hourBefore(words[i - 1]) ? AM_PM[w] : w;
  }));
}

/**
 * The date and time said in `text`, or undefined when none is said. A caller who corrects
 * themselves ("الأحد، لا لا قصدي الخميس") gives the date said after the correction; one who
 * corrects only the hour ("بكرة الساعة أربعة، لا قصدي خمسة") keeps the day said before, and the
 * hour said again is read in the half of the day nearest the one it replaces.
 */
export function parseDate(text: string, options: ParseDateOptions = {}): ParsedDate | undefined {
  const whole = read(text, options);
  const restated = restatedValue(text, (after) => read(after, options) ?? (whole?.result.time ? read(`الساعه ${after}`, options) : undefined));
  if (!restated) return whole?.result;
  const { value, after, before } = restated;
  const first = read(before, options)?.result;
  if (value.daySaid || !first) return { ...value.result, text: text.trim() };
  const { partOfDay: _, ...day } = first;
  if (!first.time || wordsOf(after).some((w) => w in DAY_PERIODS)) {
    return { ...(parseHour(after, { ...day, text: before.trim() }, options) ?? { ...day, time: value.result.time! }), text: text.trim() };
  }
  // The hour said again replaces the one said first, in the half of the day nearer it (after
  // "تسعة بالليل", "عشرة" is 22:00), across midnight when it is nearer that way.
  const from = minutesOf(first.time);
  const said = minutesOf(value.result.time!) % (12 * 60);
  const delta = [said, said + 12 * 60].map((t) => ((t - from + 36 * 60) % (24 * 60)) - 12 * 60).sort((x, y) => Math.abs(x) - Math.abs(y))[0]!;
  const at = from + delta;
  const [y, m, d] = first.date.split('-').map(Number) as [number, number, number];
  const date = addDays({ y, m, d }, Math.floor(at / (24 * 60)));
  const minutes = ((at % (24 * 60)) + 24 * 60) % (24 * 60);
  const result: ParsedDate = { ...day, date: isoDate(date), time: hhmm(Math.floor(minutes / 60), minutes % 60), text: text.trim() };
  if (first.calendar === 'islamic-umalqura') result.hijri = isoDate(toHijri(date));
  return result;
}

/**
 * The answer to "at what hour?" asked about `on`, a date said with a part of the day and no hour
 * ("بكرة العصر" then "الساعة أربعة"): that hour, read in that part of the day, on that day (16:00
 * on tomorrow's date); 12 of the morning is noon. An answer naming a day of its own ("بعد بكرة
 * الساعة خمسة") is a new date, parsed whole; one naming its own part of the day ("تسعة الصبح") is
 * read by it. Undefined when the answer says no hour and no day, or an hour that is not in the
 * part of the day given ("تسعة ونص" of the afternoon, "0:00" of the morning): ask again.
 */
export function parseHour(answer: string, on: ParsedDate, options: ParseDateOptions = {}): ParsedDate | undefined {
  const own = read(answer, options);
  if (own?.daySaid) return own.result;
  const words = wordsOf(answer);
  const ownPeriod = words.some((w) => w in DAY_PERIODS);
  if (on.partOfDay) words.push(PART_WORD[on.partOfDay]);
  const found = findTime(words, words.map(() => false));
  if (!found || found.partOfDay || found.outside) return undefined;
  // The word the part was named by ("بكرة العشا"): some are narrower than their part.
  const named = on.partOfDay ? wordsOf(on.text).findLast((w) => DAY_PERIODS[w]?.kind === on.partOfDay) : undefined;
  const time = on.partOfDay && !ownPeriod ? inPart(found, on.partOfDay, named) : found;
  if (!time) return undefined;
  const [y, m, d] = on.date.split('-').map(Number) as [number, number, number];
  const day = time.afterMidnight ? addDays({ y, m, d }, 1) : { y, m, d };
  const result: ParsedDate = { date: isoDate(day), time: time.time, calendar: on.calendar, text: `${on.text} ${answer.trim()}` };
  if (on.calendar === 'islamic-umalqura') result.hijri = isoDate(toHijri(day));
  return result;
}

/**
 * The day "اليوم" (or "الليلة") counts from. In the small hours it is the day still lived, as
 * for every relative word, except when booking ahead (`prefer: 'future'`) that reading is gone:
 * said without a time, or with one already past ("اليوم الساعة عشرة الصبح" at 01:30), it is the
 * day now starting; a time still ahead in this night ("اليوم الساعة ثنتين بالليل") keeps it.
 */
function todaySaid(offset: number, time: FoundTime | undefined, at: { lived: Ymd; today: Ymd; minutes: number; prefer: 'future' | 'past' }): Ymd {
  if (offset !== 0 || at.prefer !== 'future' || compare(at.lived, at.today) === 0) return at.lived;
  const [h, m] = time ? (time.time.split(':').map(Number) as [number, number]) : [0, 0];
  const stillAhead = time?.afterMidnight === true && h * 60 + m > at.minutes;
  return stillAhead ? at.lived : at.today;
}

/** The date said in `text`, and whether a day was said (not only a time, which falls on today or tomorrow). */
function read(text: string, options: ParseDateOptions): { result: ParsedDate; daySaid: boolean } | undefined {
  const timeZone = options.timeZone ?? PARSE_DATE_DEFAULTS.timeZone;
  const prefer = options.prefer ?? PARSE_DATE_DEFAULTS.prefer;
  const now = options.now ?? new Date();
  const dayStartsAt = options.dayStartsAt ?? PARSE_DATE_DEFAULTS.dayStartsAt;
  if (!Number.isInteger(dayStartsAt) || dayStartsAt < 0 || dayStartsAt > 12) throw new RangeError(`parseDate: dayStartsAt must be a whole hour from 0 to 12, got ${String(options.dayStartsAt)}`);
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new TypeError(`parseDate: now must be a valid Date, got ${String(options.now)}`);
  let local: ReturnType<typeof localNow>;
  try {
    local = localNow(now, timeZone);
  } catch {
    throw new RangeError(`parseDate: unknown time zone "${timeZone}" (an IANA name such as 'Asia/Riyadh')`);
  }
  const { today, minutes } = local;
  // The caller's today: in the small hours, before dayStartsAt, the day they are still living
  // (its night), from which "أمس", "بكرة", weekdays and counted days are counted.
  const smallHours = minutes < dayStartsAt * 60;
  const lived = smallHours ? addDays(today, -1) : today;
  const words = wordsOf(text);
  // "بعد ساعتين", "كمان نص ساعة": a time counted from now ("بعد ساعة ونص" was 00:30, the ساعة read as o'clock).
  const span = minutesFromNow(words);
  if (span !== undefined) {
    const at = minutes + span;
    const result: ParsedDate = { date: isoDate(addDays(today, Math.floor(at / (24 * 60)))), time: hhmm(Math.floor(at / 60) % 24, at % 60), calendar: 'gregory', text: text.trim() };
    return { result, daySaid: true };
  }
  const used = words.map(() => false);
  const joined = ` ${words.join(' ')} `;
  const hasWord = (set: Set<string>) => words.some((w) => set.has(w)) || [...set].some((p) => p.includes(' ') && joined.includes(` ${p} `));
  const next = hasWord(NEXT_WORDS);
  const last = hasWord(LAST_WORDS);
  let day: Ymd | undefined;
  let calendar: ParsedDate['calendar'] = 'gregory';

  // Written dates: 2027-03-15, 15/3, 15/3/2027, 15-3-2027.
  const written = words.find((w) => /^\d{4}-\d{1,2}-\d{1,2}$|^\d{1,2}[/-]\d{1,2}(?:[/-]\d{2,4})?$/.test(w));
  if (written) {
    const parts = written.split(/[/-]/).map(Number);
    const [y, m, d] = parts[0]! > 999 ? parts : [parts[2], parts[1], parts[0]];
    day = y === undefined ? nearest(today, m!, d!, prefer) : { y: y < 100 ? 2000 + y : y, m: m!, d: d! };
    used[words.indexOf(written)] = true;
  }
  const time = findTime(words, used);
  const month = day ? undefined : findMonth(words, used);
  if (month) {
    const [at, length, m, cal] = month;
    for (let k = at; k < at + length; k++) used[k] = true;
    const d = dayBefore(words, at, used) ?? (words[at - 1] === 'اول' || words[at - 1] === 'بدايه' ? 1 : undefined);
    if (d === undefined) return undefined;
    const y = yearAfter(words, at + length, used, cal !== 'gregory');
    calendar = cal;
    if (cal === 'gregory') day = y ? { y, m, d } : nearest(today, m, d, prefer);
    else day = fromHijri({ y, m, d }, today, prefer === 'future' ? 1 : -1);
    if (!day) return undefined;
  }
  if (!day) {
    const relative = RELATIVE_DAYS.find(([p]) => joined.includes(` ${p} `));
    // "من يومين" is two days ago in every variety ("since two days": Hinds and Badawi's Egyptian
    // dictionary, min "ago"); "من يوم…" alone is "since the day…", no span.
    const span = joined.match(/ (بعد|عقب|قبل|من) (?:(\S+) )?(يوم|ايام|يومين|اسبوع|اسابيع|اسبوعين|شهر|اشهر|شهور|شهرين|جمعه|جمعتين) /);
    const after = span?.[1] === 'من' && !span[2] && /^(?:يوم|جمعه)$/.test(span[3]!) ? null : span;
    const weekdayWord = words.find((w) => w in WEEKDAY_WORDS);
    const dayOnly = joined.match(/ يوم (\S+(?: و\S+)?) /) ?? joined.match(/ (\S+(?: و\S+)?) (?:من )?(?:هذا )?الشهر /);
    if (after) {
      const unit = after[3]!;
      const dual = /ين$/.test(unit) && unit !== 'يومين' ? 2 : unit === 'يومين' ? 2 : 1;
      const count = after[2] ? readSpoken(after[2]).find((n) => n.kind === 'number')?.value ?? 1 : dual;
      const sign = after[1] === 'قبل' || after[1] === 'من' ? -1 : 1;
      if (/^(?:شهر|اشهر|شهور|شهرين)$/.test(unit)) {
        const first = monthStart(lived, sign * count);
        day = { ...first, d: Math.min(lived.d, daysInMonth(first.y, first.m)) };
      } else day = addDays(lived, sign * count * (/^(?:يوم|ايام|يومين)$/.test(unit) ? 1 : 7));
    } else if (/ (?:نهايه|اخر|نهاية) (?:ال)?شهر /.test(joined)) {
      const first = monthStart(today, next ? 1 : 0);
      day = { ...first, d: daysInMonth(first.y, first.m) };
    } else if (/ (?:اول|بدايه|مطلع) (?:ال)?شهر /.test(joined)) {
      day = today.d === 1 && !next ? today : monthStart(today, 1);
    } else if (weekdayWord) {
      const target = WEEKDAY_WORDS[weekdayWord]!;
      const step = last ? -1 : 1;
      day = addDays(lived, step);
      while (weekday(day) !== target) day = addDays(day, step);
    } else if (/ (?:ال)?(?:اسبوع|جمعه) /.test(joined) && (next || last)) {
      day = addDays(lived, last ? -7 : 7);
    } else if (/ (?:نص|نصف|منتصف) (?:ال)?شهر /.test(joined)) {
      // The middle of the month: its 15th; this month's unless it has passed, or the next's (last's) when said.
      const here = { ...today, d: 15 };
      const month = next || last ? monthStart(today, last ? -1 : 1) : compare(here, today) >= 0 || prefer === 'past' ? today : monthStart(today, 1);
      day = { ...month, d: 15 };
    } else if (/ (?:ال)?شهر /.test(joined) && (next || last)) {
      // "عشرين الشهر الجاي": that day of the next month (it was read as the first of it).
      const first = monthStart(today, last ? -1 : 1);
      const said = dayOnly && isNumberWord(dayOnly[1]!.split(' ')[0]!) ? readSpoken(dayOnly[1]!).find((n) => n.kind === 'number')?.value : undefined;
      day = said === undefined ? first : { ...first, d: said };
    } else if (relative) {
      day = addDays(todaySaid(relative[1], time, { lived, today, minutes, prefer }), relative[1]);
    } else if (dayOnly && isNumberWord(dayOnly[1]!.split(' ')[0]!)) {
      const d = readSpoken(dayOnly[1]!).find((n) => n.kind === 'number')?.value;
      if (d === undefined) return undefined;
      const here = { ...today, d };
      day = compare(here, today) >= 0 || prefer === 'past' ? here : { ...monthStart(today, 1), d };
    }
  }
  const daySaid = day !== undefined;
  if (!day && time) {
    // A time alone: today, or tomorrow when that time has passed.
    const [h, m] = time.time.split(':').map(Number) as [number, number];
    day = h * 60 + m > minutes || prefer === 'past' ? today : addDays(today, 1);
  } else if (day && time?.afterMidnight) {
    // "بكرة الساعة اتناشر بالليل": the night of the day said runs past midnight into the next date.
    if (!valid(day)) return undefined;
    day = addDays(day, 1);
  }
  if (!day || !valid(day)) return undefined;
  const result: ParsedDate = { date: isoDate(day), calendar, text: text.trim() };
  if (time && !time.outside) result.time = time.time;
  if (time?.partOfDay) result.partOfDay = time.partOfDay;
  if (time?.outside) result.hourOutsidePart = time.outside;
  if (calendar === 'islamic-umalqura') result.hijri = isoDate(toHijri(day));
  return { result, daySaid };
}
