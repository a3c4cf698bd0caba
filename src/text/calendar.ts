/**
 * Calendar arithmetic for the date parser: a day as { y, m, d } (Gregorian), today in a time
 * zone, days added, weekdays, and the Umm al-Qura Hijri calendar through ICU
 * (`Intl.DateTimeFormat` with `calendar: 'islamic-umalqura'`, built into Node; no dependency).
 */

/** A calendar day (Gregorian unless said otherwise). */
export interface Ymd {
  y: number;
  m: number;
  d: number;
}

const DAY_MS = 86_400_000;
const toMs = (v: Ymd) => Date.UTC(v.y, v.m - 1, v.d);
const fromMs = (ms: number): Ymd => {
  const t = new Date(ms);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
};

/** The day `n` days after (or before) v. */
export const addDays = (v: Ymd, n: number): Ymd => fromMs(toMs(v) + n * DAY_MS);
/** 0 (Sunday) to 6 (Saturday). */
export const weekday = (v: Ymd): number => new Date(toMs(v)).getUTCDay();
/** Days in a Gregorian month (m 1–12). */
export const daysInMonth = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();
/** Negative, zero or positive as a is before, on or after b. */
export const compare = (a: Ymd, b: Ymd): number => toMs(a) - toMs(b);
/** `YYYY-MM-DD`. */
export const isoDate = (v: Ymd): string => `${String(v.y).padStart(4, '0')}-${String(v.m).padStart(2, '0')}-${String(v.d).padStart(2, '0')}`;

/** The first day of the month `add` months from v's. */
export function monthStart(v: Ymd, add: number): Ymd {
  const months = v.y * 12 + (v.m - 1) + add;
  return { y: Math.floor(months / 12), m: (months % 12) + 1, d: 1 };
}

/** Today's date and the clock time (minutes since midnight) at `now` in `timeZone`. */
export function localNow(now: Date, timeZone: string): { today: Ymd; minutes: number } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', hourCycle: 'h23',
  }).formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { today: { y: get('year'), m: get('month'), d: get('day') }, minutes: get('hour') * 60 + get('minute') };
}

let hijriFormat: Intl.DateTimeFormat | undefined;
/** The Umm al-Qura date of a Gregorian day. */
export function toHijri(v: Ymd): Ymd {
  hijriFormat ??= new Intl.DateTimeFormat('en-u-ca-islamic-umalqura-nu-latn', { timeZone: 'UTC', year: 'numeric', month: 'numeric', day: 'numeric' });
  const parts = hijriFormat.formatToParts(new Date(toMs(v)));
  const get = (type: string) => parseInt(parts.find((p) => p.type === type)?.value ?? '', 10);
  return { y: get('year'), m: get('month'), d: get('day') };
}

/**
 * The Gregorian day of a Hijri date. With the year, searched around the year's estimate; without
 * it, the nearest such day from `from` on (or back, for `direction` -1), within a Hijri year.
 */
export function fromHijri(h: { y?: number; m: number; d: number }, from: Ymd, direction: 1 | -1): Ymd | undefined {
  if (h.m < 1 || h.m > 12 || h.d < 1 || h.d > 30) return undefined;
  let start = from;
  let step: number = direction;
  let span = 390;
  if (h.y !== undefined) {
    // A Hijri year is about 354.37 days; AH 1 began in July 622.
    const estimate = Math.round(622.55 + (h.y - 1 + (h.m - 1) / 12) * 0.970224);
    start = { y: estimate, m: 1, d: 1 };
    start = addDays(start, -400);
    step = 1;
    span = 1200;
  }
  for (let i = 0; i < span; i++) {
    const day = addDays(start, i * step);
    const hd = toHijri(day);
    if (hd.m === h.m && hd.d === h.d && (h.y === undefined || hd.y === h.y)) return day;
  }
  return undefined;
}
