/**
 * The 20-contact campaign both runner tests play: what each number's phone does attempt by
 * attempt, and what every contact must end with. Shared by the in-process test, the BullMQ test
 * and its worker processes.
 */
import type { AttemptOutcome, Contact } from '../../src/campaign/types.ts';

/** Outcomes by attempt, per contact index (the last one repeats). */
export const SCRIPT: AttemptOutcome[][] = [
  ...Array.from({ length: 10 }, () => ['completed'] as AttemptOutcome[]),
  ['busy', 'completed'],
  ['busy', 'busy', 'completed'],
  ['no-answer', 'completed'],
  ['no-answer'], // three tries, all unanswered
  ['machine-unavailable', 'completed'],
  ['machine-voicemail'], // a voicemail: not tried again
  ['completed'], // on the do-not-call list: never dialled
  ['failed', 'completed'],
  ['busy', 'completed'],
  ['completed'], // in Cairo: the window in its own zone
];

/** The index of the do-not-call contact. */
export const DNC_INDEX = 16;
/** The index whose contact lives in Cairo. */
export const CAIRO_INDEX = 19;

/** The campaign's contacts: numbers +96650000100<i>, a name, a zone for one. */
export function contacts(): Contact[] {
  return SCRIPT.map((_, i) => ({ number: numberOf(i), variables: { name: `عميل ${i}` }, ...(i === CAIRO_INDEX ? { timeZone: 'Africa/Cairo' } : {}), line: i + 2 }));
}

export const numberOf = (i: number) => `+9665000010${String(i).padStart(2, '0')}`;

/** What attempt `n` (from 1) of contact `i` ends with. */
export const outcomeOf = (i: number, n: number): AttemptOutcome => SCRIPT[i]![Math.min(n, SCRIPT[i]!.length) - 1]!;

/** Each contact's final outcome and attempts count, with retries 2. */
export function expected(i: number): { outcome: string; attempts: number } {
  if (i === DNC_INDEX) return { outcome: 'do-not-call', attempts: 0 };
  if (i === 13) return { outcome: 'no-answer', attempts: 3 };
  return { outcome: SCRIPT[i]!.at(-1)!, attempts: SCRIPT[i]!.length };
}
