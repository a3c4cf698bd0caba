/**
 * Calling windows: "Sun-Thu 09:00-21:00 Asia/Riyadh" — the days and hours a contact may be called,
 * in a time zone (the contact's own when it has one). Pure: times are epoch milliseconds.
 */

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** A parsed calling window. */
export interface CallingWindow {
  /** Allowed weekdays, 0 = Sunday. */
  days: Set<number>;
  /** Minutes after local midnight: from (inclusive) to (exclusive). */
  fromMin: number;
  toMin: number;
  /** IANA time zone used when the contact has none. */
  timeZone: string;
}

/** Parses `"Sun-Thu 09:00-21:00 Asia/Riyadh"` (days as a range or a comma list; the zone optional, default UTC). */
export function parseWindow(text: string): CallingWindow {
  const m = /^\s*([A-Za-z]{3}(?:\s*[-,]\s*[A-Za-z]{3})*)\s+(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})(?:\s+(\S+))?\s*$/.exec(text);
  if (!m) throw new Error(`calling window "${text}": expected like "Sun-Thu 09:00-21:00 Asia/Riyadh"`);
  const day = (d: string) => {
    const i = DAYS.indexOf(d.trim().toLowerCase());
    if (i < 0) throw new Error(`calling window "${text}": unknown day "${d}"`);
    return i;
  };
  const days = new Set<number>();
  for (const part of m[1]!.split(',')) {
    const [a, b] = part.split('-');
    if (b === undefined) days.add(day(a!));
    else for (let i = day(a!), end = day(b); ; i = (i + 1) % 7) {
      days.add(i);
      if (i === end) break;
    }
  }
  const fromMin = Number(m[2]) * 60 + Number(m[3]);
  const toMin = Number(m[4]) * 60 + Number(m[5]);
  if (fromMin >= toMin || toMin > 24 * 60) throw new Error(`calling window "${text}": the hours must run forward within one day`);
  const timeZone = m[6] ?? 'UTC';
  zoneCheck(timeZone, text);
  return { days, fromMin, toMin, timeZone };
}

function zoneCheck(timeZone: string, where: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new Error(`${where}: unknown time zone "${timeZone}"`);
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** Weekday (0 = Sunday) and minutes after midnight of `at` in `timeZone`. */
function local(at: number, timeZone: string): { day: number; min: number } {
  let f = formats.get(timeZone);
  if (!f) formats.set(timeZone, (f = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })));
  const parts = Object.fromEntries(f.formatToParts(at).map((p) => [p.type, p.value]));
  return { day: DAYS.indexOf(String(parts.weekday).toLowerCase()), min: Number(parts.hour) * 60 + Number(parts.minute) };
}

/** True when `at` falls inside the window, in `timeZone` (the contact's) or the window's own. */
export function inWindow(w: CallingWindow, at: number, timeZone = w.timeZone): boolean {
  const { day, min } = local(at, timeZone);
  return w.days.has(day) && min >= w.fromMin && min < w.toMin;
}

/** The first minute at or after `at` inside the window (within 8 days), or undefined when it never opens. */
export function nextOpening(w: CallingWindow, at: number, timeZone = w.timeZone): number | undefined {
  if (inWindow(w, at, timeZone)) return at;
  // Minute steps to the next whole minute, then whole minutes: time zones with odd offsets included.
  let t = Math.ceil(at / 60_000) * 60_000;
  for (let i = 0; i < 8 * 24 * 60; i++, t += 60_000) if (inWindow(w, t, timeZone)) return t;
  return undefined;
}

/** Checks a contact's time zone name. */
export function checkTimeZone(timeZone: string, where: string): void {
  zoneCheck(timeZone, where);
}
