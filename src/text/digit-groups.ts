/**
 * How a run of digits is cut into groups for the ear, each group said in one breath and a pause
 * between them: the lengths of IDs and local phones as they are written at home (10 digits
 * 3-3-4, 11 digits 3-4-4), a phone with its country code as the country writes it
 * internationally (+966 50 123 4567), and other long runs in fours.
 */
import { phoneNumbers } from './phone-numbers.ts';

/** How many digits each group holds, by length: 10 → 3-3-4, 11 → 3-4-4, 9 → 3-3-3, otherwise threes then the rest. */
export function digitGroups(length: number): number[] {
  if (length <= 4) return [length];
  if (length === 10) return [3, 3, 4];
  if (length === 11) return [3, 4, 4];
  if (length === 9) return [3, 3, 3];
  return Array.from({ length: Math.ceil(length / 3) }, () => 3);
}

/** A group of a national format longer than four digits, cut as it is said: 5 → 2-3, 7 → 3-4. */
export function spokenGroups(length: number): number[] {
  if (length <= 4) return [length];
  if (length === 5) return [2, 3];
  return [3, ...spokenGroups(length - 3)];
}

/** `digits` cut into groups of the given sizes; what is left over is one more group. */
export function cutDigits(digits: string, sizes: number[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= digits.length) break;
    out.push(digits.slice(at, at + size));
    at += size;
  }
  if (at < digits.length) out.push(digits.slice(at));
  return out;
}

/** Runs shorter than this are said in one breath (a six-digit code). */
export const GROUPED_FROM = 7;

/** Fours; a single digit left over makes the last two groups 3 and 2 (13 → 4-4-3-2). */
function fours(length: number): number[] {
  const sizes = Array.from({ length: Math.floor(length / 4) }, () => 4);
  const rest = length % 4;
  if (rest === 1) sizes.splice(-1, 1, 3, 2);
  else if (rest) sizes.push(rest);
  return sizes;
}

/** Saudi and Emirati mobiles (5X, nine digits) and Egyptian ones (1X, ten), whose groups hiwar knows without libphonenumber. */
const OWN_INTERNATIONAL: Record<string, { nsn: RegExp; sizes: number[] }> = {
  '966': { nsn: /^5\d{8}$/, sizes: [2, 3, 4] },
  '971': { nsn: /^5\d{8}$/, sizes: [2, 3, 4] },
  '20': { nsn: /^1\d{9}$/, sizes: [2, 4, 4] },
};

/** "+966501234567" → ["+966", "50", "123", "4567"]: the code, then the country's groups (libphonenumber's international format). */
function internationalGroups(number: string): string[] {
  for (const [code, own] of Object.entries(OWN_INTERNATIONAL)) {
    const nsn = number.slice(code.length + 1);
    if (number.startsWith(`+${code}`) && own.nsn.test(nsn)) return [`+${code}`, ...cutDigits(nsn, own.sizes)];
  }
  const formatted = phoneNumbers().parsePhoneNumberFromString(number)?.formatInternational();
  if (!formatted) {
    const [first = '', ...rest] = cutDigits(number.slice(1), fours(number.length - 1));
    return [`+${first}`, ...rest];
  }
  const groups = formatted.split(/[^\d+]+/).filter(Boolean);
  return groups.flatMap((g) => (g.startsWith('+') ? [g] : cutDigits(g, spokenGroups(g.length))));
}

/**
 * A run of digits written without spaces cut into the groups it is said in: with a leading `+`
 * (or 00), as its country writes it internationally; 9–11 digits as IDs and local phones (3-3-3, 3-3-4,
 * 3-4-4; a Saudi unified number 9200 XXXXX); 7 → 3-4, 8 → 4-4; 12 or more in fours. Shorter
 * runs stay whole.
 */
export function groupsForEar(run: string): string[] {
  if (run.startsWith('+')) return /^\+\d{7,}$/.test(run) ? internationalGroups(run) : [run];
  // 00 before a country code is the + dialled: the same groups, 00 kept.
  if (/^00[1-9]\d{6,}$/.test(run)) return internationalGroups(`+${run.slice(2)}`).map((g) => g.replace(/^\+/, '00'));
  const n = run.length;
  if (n < GROUPED_FROM) return [run];
  if (n === 7) return cutDigits(run, [3, 4]);
  // Saudi unified numbers are written 9200 XXXXX.
  if (n === 9 && run.startsWith('9200')) return cutDigits(run, [4, 5]);
  if (n <= 11) return cutDigits(run, n === 8 ? [4, 4] : digitGroups(n));
  return cutDigits(run, fours(n));
}
