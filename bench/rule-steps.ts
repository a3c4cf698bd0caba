/**
 * The word bench's cases decided by any scoring rule at any threshold, fast: each case's outcome
 * is a step function of the threshold (bench/recognizer-rules.ts).
 */
import type { WordOpinions } from '../src/sandbox/engines/word-fusion.ts';
import { wordsOf } from '../src/sandbox/engines/word-fusion.ts';
import type { BenchCase } from './recognizer-choice.ts';

/**
 * A case's outcome as a step function of the threshold t: `at` holds its stretches' distinct
 * scores, ascending, then +Infinity; outcome i holds for t in (at[i - 1], at[i]] (the opinions
 * scoring at least at[i] pass; above every score none does).
 */
export interface Steps {
  c: BenchCase;
  at: number[];
  right: boolean[];
  heard: boolean[];
}

export function steps(c: BenchCase, score: (o: WordOpinions) => { word: string; score: number } | undefined): Steps {
  const singles = c.heard.singles.map((o) => (o ? score(o) : undefined));
  const joins = c.heard.joins.map((o) => (o ? score(o) : undefined));
  const all = [...singles, ...joins].filter((s) => s !== undefined).map((s) => s.score);
  const at = [...[...new Set(all)].sort((a, b) => a - b), Number.POSITIVE_INFINITY];
  const right: boolean[] = [];
  const heard: boolean[] = [];
  for (const t of at) {
    const pass = (s: { word: string; score: number } | undefined) => (s && s.score >= t ? { word: s.word, confidence: s.score } : undefined);
    const words = wordsOf(singles.length, (i) => pass(singles[i]), (i) => pass(joins[i]))?.map((w) => w.word);
    heard.push(words !== undefined);
    right.push(c.expected === undefined ? !words : words?.length === 1 && words[0] === c.expected);
  }
  return { c, at, right, heard };
}

/** Index of the step in force at threshold t (the first breakpoint at or above t). */
export function stepAt(s: Steps, t: number): number {
  let lo = 0;
  let hi = s.at.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s.at[mid]! >= t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
export const rightAt = (ss: Steps[], t: number) => ss.reduce((n, s) => n + (s.right[stepAt(s, t)] ? 1 : 0), 0);
export const above = (x: number) => x + 1e-9 * Math.max(1, Math.abs(x));

/** The lowest threshold that rejects `target` of the unknown cases (thresholds just above a breakpoint). */
export function thresholdFor(unknown: Steps[], target: number): number {
  const candidates = [Number.NEGATIVE_INFINITY, ...[...new Set(unknown.flatMap((s) => s.at.slice(0, -1)))].sort((a, b) => a - b).map(above)];
  const need = Math.ceil(target * unknown.length - 1e-9);
  for (const t of candidates) if (rightAt(unknown, t) >= need) return t;
  return Number.POSITIVE_INFINITY;
}

