/**
 * The word bench's decisions, made after the fact on stored opinions (src/sandbox/engines/word-fusion.ts):
 * every case was heard once; here each is decided at any classifier weight and threshold per band,
 * so one run gives the rows at the shipped settings, the trade-off, and the settings chosen for
 * each held-out speaker on the other five alone (nested: nothing of the held-out speaker's
 * decides their settings).
 */
import type { HeardStretches } from '../src/sandbox/engines/vocabulary.ts';
import { fuseOpinions, wordsOf, type PerBand, type WordOpinions } from '../src/sandbox/engines/word-fusion.ts';
import type { WordBand } from '../src/sandbox/engines/word-features.ts';

/** One case of the bench: the stretches' opinions, and the word expected (undefined: an unknown word, to be rejected). */
export interface BenchCase {
  fold: string;
  condition: string;
  /** The band the case's row is about (which settings decide it). */
  band: WordBand;
  expected: string | undefined;
  heard: HeardStretches;
}

/** Decision settings per band. */
export interface Settings {
  weight: PerBand<number>;
  threshold: PerBand<number>;
  temperature: number;
}

/** One row: right (heard as expected, or an unknown word unheard), and how many said nothing. */
export interface WordBenchRow {
  condition: string;
  right: number;
  total: number;
  silent: number;
}

/** The words heard in a case at these settings, as the recognizer would say them (undefined: nothing). */
export function decide(c: BenchCase, s: Settings): string[] | undefined {
  const one = (o: WordOpinions | undefined) => {
    const f = o && fuseOpinions(o, s.weight[o.band], s.temperature);
    // Confidence as the recognizer reports it (rounded, at most 0.99): wordsOf compares them.
    return f && f.score >= s.threshold[o.band] ? { word: f.word, confidence: Math.min(0.99, Math.round(f.score * 1000) / 1000) } : undefined;
  };
  return wordsOf(c.heard.singles.length, (i) => one(c.heard.singles[i]), (i) => one(c.heard.joins[i]))?.map((w) => w.word);
}

/** The highest threshold (to 0.001) at which the case is still heard; 0 when it never is. */
export function scoreOf(c: BenchCase, weight: PerBand<number>, temperature: number): number {
  const at = (t: number) => decide(c, { weight, threshold: { wide: t, phone: t }, temperature }) !== undefined;
  if (!at(0)) return 0;
  let [lo, hi] = [0, 1.001];
  while (hi - lo > 0.001) {
    const mid = (lo + hi) / 2;
    if (at(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

const isRight = (c: BenchCase, heard: string[] | undefined) => (c.expected === undefined ? !heard : heard?.length === 1 && heard[0] === c.expected);

/** The rows, settings per case (a fold's own, or the same for all). */
export function rowsAt(cases: readonly BenchCase[], settings: (c: BenchCase) => Settings): WordBenchRow[] {
  const rows = new Map<string, WordBenchRow>();
  for (const c of cases) {
    const r = rows.get(c.condition) ?? { condition: c.condition, right: 0, total: 0, silent: 0 };
    rows.set(c.condition, r);
    const heard = decide(c, settings(c));
    r.total++;
    if (isRight(c, heard)) r.right++;
    if (!heard) r.silent++;
  }
  return [...rows.values()];
}

/**
 * The lowest threshold at which `target` of these unknown cases are rejected at `weight` (just
 * above the score of the last one that must go), 0 when there are none.
 */
export function thresholdFor(unknown: readonly BenchCase[], weight: PerBand<number>, temperature: number, target: number): number {
  const scores = unknown.map((c) => scoreOf(c, weight, temperature)).sort((a, b) => a - b);
  if (!scores.length) return 0;
  const at = scores[Math.min(scores.length - 1, Math.ceil(target * scores.length) - 1)]!;
  return Math.ceil((at + 1e-3) * 1000) / 1000;
}

/** The settings each fold gets, chosen on the other folds, and why. */
export interface FoldChoice {
  fold: string;
  settings: Settings;
}

/**
 * Per held-out speaker, per band: the classifier weight (of `grid`) under which the other five
 * speakers' words are heard best, each at the threshold that rejects `target` of the other five's
 * people's unknown words in that band (`unknownOf(band)` names their condition; with no such
 * cases the threshold is `fallback`). Ties go to the lower weight.
 */
export function nestedChoice(
  cases: readonly BenchCase[],
  opts: { grid: number[]; temperature: number; target: number; known: PerBand<string>; unknown: PerBand<string | undefined>; fallback: PerBand<number> },
): FoldChoice[] {
  const folds = [...new Set(cases.map((c) => c.fold))];
  return folds.map((fold) => {
    const others = cases.filter((c) => c.fold !== fold);
    const settings: Settings = { weight: { wide: 0, phone: 0 }, threshold: { wide: 0, phone: 0 }, temperature: opts.temperature };
    for (const band of ['wide', 'phone'] as const) {
      const known = others.filter((c) => c.condition === opts.known[band]);
      const unknown = others.filter((c) => c.condition === opts.unknown[band]);
      let best = -1;
      for (const w of opts.grid) {
        const weight = { wide: w, phone: w };
        const threshold = unknown.length ? thresholdFor(unknown, weight, opts.temperature, opts.target) : opts.fallback[band];
        const s = { weight, threshold: { wide: threshold, phone: threshold }, temperature: opts.temperature };
        const right = rowsAt(known, () => s)[0]?.right ?? 0;
        if (right > best) {
          best = right;
          settings.weight[band] = w;
          settings.threshold[band] = threshold;
        }
      }
    }
    return { fold, settings };
  });
}

/** Right answers with no threshold (the best word, whatever its score) per weight of `grid`, per condition. */
export function weightSweep(cases: readonly BenchCase[], grid: number[], temperature: number): { weight: number; rows: WordBenchRow[] }[] {
  return grid.map((w) => ({ weight: w, rows: rowsAt(cases.filter((c) => c.expected !== undefined), () => ({ weight: { wide: w, phone: w }, threshold: { wide: 0, phone: 0 }, temperature })) }));
}
