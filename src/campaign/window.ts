/**
 * Calling windows: "Sun-Thu 09:00-21:00 Asia/Riyadh". Days (a range, a comma list, or `daily`),
 * hours in 24-hour time, and the zone the hours are read in unless a contact has its own. All
 * computed through the platform's ICU time zones, so daylight saving and zones a day apart come
 * out right.
 */

/** A parsed calling window. */
export interface CallingWindow {
  /** Days the window is open, 0 = Sunday. */
  days: ReadonlySet<number>;
  /** Minutes after local midnight the window opens, and closes (exclusive; up to 1440). */
  startMin: number;
  endMin: number;
  /** The zone hours are read in when a contact names none. */
  zone: string;
  /** The text it was parsed from. */
  text: string;
}

/** A window that cannot be read; the message says which part and why. */
export class WindowError extends Error {
  override readonly name = 'WindowError';
}

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const FORMATS = new Map<string, Intl.DateTimeFormat>();

/** Throws `WindowError` unless `zone` is an IANA time zone the platform knows. */
export function checkZone(zone: string, what = 'time zone'): string {
  try {
    formatter(zone);
  } catch {
    throw new WindowError(`unknown ${what} "${zone}" (an IANA zone such as Asia/Riyadh, Africa/Cairo, UTC)`);
  }
  return zone;
}

/** Reads "Sun-Thu 09:00-21:00 Asia/Riyadh" (`daily` for every day; the zone defaults to `defaultZone`). */
export function parseWindow(text: string, defaultZone = 'UTC'): CallingWindow {
  const parts = String(text ?? '').trim().split(/\s+/).filter(Boolean);
  const example = 'e.g. "Sun-Thu 09:00-21:00 Asia/Riyadh"';
  if (parts.length < 2 || parts.length > 3) throw new WindowError(`a window is days, hours and an optional zone (${example}), got "${text}"`);
  const [dayText, hourText, zone = defaultZone] = parts as [string, string, string?];
  const hours = /^(\d{1,2}):(\d{2})-(\d{1,2}):(\d{2})$/.exec(hourText);
  if (!hours) throw new WindowError(`hours must read HH:MM-HH:MM (${example}), got "${hourText}"`);
  const [h1, m1, h2, m2] = hours.slice(1).map(Number) as [number, number, number, number];
  if (h1 > 23 || m1 > 59 || h2 > 24 || m2 > 59 || (h2 === 24 && m2 > 0)) throw new WindowError(`"${hourText}" is not a time of day`);
  const startMin = h1 * 60 + m1;
  const endMin = h2 * 60 + m2;
  if (endMin <= startMin) throw new WindowError(`the hours must end after they start, got "${hourText}" (a window past midnight is two windows: call within one day)`);
  return { days: parseDays(dayText), startMin, endMin, zone: checkZone(zone), text: String(text).trim() };
}

function parseDays(text: string): Set<number> {
  const lower = text.toLowerCase();
  if (lower === 'daily' || lower === 'all') return new Set([0, 1, 2, 3, 4, 5, 6]);
  const day = (d: string) => {
    const i = DAYS.indexOf(d.slice(0, 3));
    if (i < 0 || !'sunday monday tuesday wednesday thursday friday saturday'.split(' ')[i]!.startsWith(d)) throw new WindowError(`unknown day "${d}" (Sun, Mon, Tue, Wed, Thu, Fri, Sat)`);
    return i;
  };
  const out = new Set<number>();
  for (const piece of lower.split(',')) {
    const range = piece.split('-');
    if (range.length === 1) out.add(day(range[0]!));
    else if (range.length === 2) {
      // A range may wrap the week: Thu-Sun is Thu, Fri, Sat, Sun.
      for (let i = day(range[0]!), end = day(range[1]!); ; i = (i + 1) % 7) {
        out.add(i);
        if (i === end) break;
      }
    } else throw new WindowError(`days must read like Sun-Thu or Sun,Tue,Thu, got "${text}"`);
  }
  return out;
}

/** A moment's calendar date, weekday and minutes after midnight in `zone`. */
export function localTime(ms: number, zone: string): { year: number; month: number; day: number; weekday: number; minutes: number } {
  const p = Object.fromEntries(formatter(zone).formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  const hour = Number(p.hour) % 24;
  return { year: Number(p.year), month: Number(p.month), day: Number(p.day), weekday: DAYS.indexOf(String(p.weekday).toLowerCase()), minutes: hour * 60 + Number(p.minute) };
}

/** Whether the window is open at `ms` for a contact in `zone` (default: the window's). */
export function isOpen(w: CallingWindow, ms: number, zone = w.zone): boolean {
  const t = localTime(ms, zone);
  return w.days.has(t.weekday) && t.minutes >= w.startMin && t.minutes < w.endMin;
}

/** The first moment at or after `ms` the window is open for a contact in `zone`. */
export function nextOpening(w: CallingWindow, ms: number, zone = w.zone): number {
  if (isOpen(w, ms, zone)) return ms;
  const today = localTime(ms, zone);
  for (let k = 0; k <= 7; k++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + k));
    if (!w.days.has(date.getUTCDay())) continue;
    const at = localToUtc(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), w.startMin, zone);
    if (at > ms) return at;
  }
  throw new WindowError(`the window "${w.text}" never opens`);
}

/** The UTC ms of a local date and minute in `zone` (the offset taken twice, for days that change it). */
export function localToUtc(year: number, month: number, day: number, minutes: number, zone: string): number {
  const guess = Date.UTC(year, month - 1, day, 0, minutes);
  const first = guess - offsetOf(guess, zone);
  return guess - offsetOf(first, zone);
}

/** How far `zone`'s clock is ahead of UTC at `ms`. */
function offsetOf(ms: number, zone: string): number {
  const t = localTime(ms, zone);
  const local = Date.UTC(t.year, t.month - 1, t.day, 0, t.minutes);
  return local - Math.floor(ms / 60_000) * 60_000;
}

function formatter(zone: string): Intl.DateTimeFormat {
  let f = FORMATS.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', weekday: 'short', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    FORMATS.set(zone, f);
  }
  return f;
}
