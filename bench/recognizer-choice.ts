/**
 * The word bench's decisions, made after the fact on stored opinions (src/sandbox/engines/word-fusion.ts):
 * every case was heard once; here each is decided at any classifier weight and threshold per band,
 * so one run gives the rows at the shipped settings, the trade-off, and the settings chosen for
 * each held-out speaker on the other five alone (nested: nothing of the held-out speaker's
 * decides their settings).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { HeardStretches } from '../src/sandbox/engines/vocabulary.ts';
import { fuseOpinions, wordsOf, type PerBand, type Sureness, type WordOpinions } from '../src/sandbox/engines/word-fusion.ts';
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
  /** How sureness is measured per band (word-fusion.ts `Sureness`); none: at the ranking's weight and temperature. */
  sureness?: PerBand<Sureness>;
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
    const f = o && fuseOpinions(o, s.weight[o.band], s.temperature, s.sureness?.[o.band]);
    // Confidence as the recognizer reports it (rounded, at most 0.99): wordsOf compares them.
    return f && f.score >= s.threshold[o.band] ? { word: f.word, confidence: Math.min(0.99, Math.round(f.score * 1000) / 1000) } : undefined;
  };
  return wordsOf(c.heard.singles.length, (i) => one(c.heard.singles[i]), (i) => one(c.heard.joins[i]))?.map((w) => w.word);
}

/** The highest threshold (to 0.001) at which the case is still heard; 0 when it never is. */
export function scoreOf(c: BenchCase, weight: PerBand<number>, temperature: number, sureness?: PerBand<Sureness>): number {
  const at = (t: number) => decide(c, { weight, threshold: { wide: t, phone: t }, temperature, sureness }) !== undefined;
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
export function thresholdFor(unknown: readonly BenchCase[], weight: PerBand<number>, temperature: number, target: number, sureness?: PerBand<Sureness>): number {
  const scores = unknown.map((c) => scoreOf(c, weight, temperature, sureness)).sort((a, b) => a - b);
  if (!scores.length) return 0;
  const at = scores[Math.min(scores.length - 1, Math.ceil(target * scores.length) - 1)]!;
  return Math.ceil((at + 1e-3) * 1000) / 1000;
}

/** The settings each fold gets, chosen on the other folds. */
export interface FoldChoice {
  fold: string;
  settings: Settings;
}

/** How settings are chosen from cases (see `choose`). */
export interface ChoiceOptions {
  /** Classifier weights tried. */
  grid: number[];
  temperature: number;
  /** Share of people's unknown words to reject. */
  target: number;
  /** Per band, the condition of the known words and of people's unknown words. */
  known: PerBand<string>;
  unknown: PerBand<string>;
  /** How sureness is measured (kept, not chosen). */
  sureness?: PerBand<Sureness>;
}

/**
 * Settings from these cases, per band: the classifier weight (of `grid`) under which the most
 * known words are heard right with no threshold (ties to the weight whose neighbours in the grid
 * do best: the middle of a plateau), then, unless `threshold` is given, the lowest threshold
 * that rejects `target` of people's unknown words at that weight. The shipped weights are this
 * on all six speakers; `nestedChoice` does it on five to measure it on the sixth.
 */
export function choose(cases: readonly BenchCase[], opts: ChoiceOptions, threshold?: PerBand<number>): Settings {
  const settings: Settings = { weight: { wide: 0, phone: 0 }, threshold: { wide: 0, phone: 0 }, temperature: opts.temperature, sureness: opts.sureness };
  for (const band of ['wide', 'phone'] as const) {
    const known = cases.filter((c) => c.condition === opts.known[band]);
    const right = opts.grid.map((w) => rowsAt(known, () => ({ weight: { wide: w, phone: w }, threshold: { wide: 0, phone: 0 }, temperature: opts.temperature }))[0]?.right ?? 0);
    const rank = (i: number) => right[i]! * 1e6 + (right[i - 1] ?? 0) + (right[i + 1] ?? 0);
    const best = opts.grid.reduce((b, _, i) => (rank(i) > rank(b) ? i : b), 0);
    settings.weight[band] = opts.grid[best]!;
    const unknown = cases.filter((c) => c.condition === opts.unknown[band]);
    settings.threshold[band] = threshold?.[band] ?? thresholdFor(unknown, settings.weight, opts.temperature, opts.target, opts.sureness);
  }
  return settings;
}

/** Per held-out speaker, the settings `choose` makes of the other speakers' cases alone (`threshold`: fixed instead). */
export function nestedChoice(cases: readonly BenchCase[], opts: ChoiceOptions, threshold?: PerBand<number>): FoldChoice[] {
  return [...new Set(cases.map((c) => c.fold))].map((fold) => ({ fold, settings: choose(cases.filter((c) => c.fold !== fold), opts, threshold) }));
}

/** Right answers with no threshold (the best word, whatever its score) per weight of `grid`, per condition. */
export function weightSweep(cases: readonly BenchCase[], grid: number[], temperature: number): { weight: number; rows: WordBenchRow[] }[] {
  return grid.map((w) => ({ weight: w, rows: rowsAt(cases.filter((c) => c.expected !== undefined), () => ({ weight: { wide: w, phone: w }, threshold: { wide: 0, phone: 0 }, temperature })) }));
}

/** The length of a template in frames, for rules on the heard word's length (a fold leaves its own speaker's out). */
export interface TemplateLength {
  word: string;
  source: string;
  band: WordBand;
  frames: number;
}

/** Stored cases and template lengths, for trying decision rules without hearing anything again (bench/recognizer-rules.ts). */
export interface StoredCases {
  cases: BenchCase[];
  lengths: TemplateLength[];
}

/** Writes the cases as JSON (the probabilities as arrays, the distances as pairs). */
export function saveCases(file: string, stored: StoredCases): void {
  writeFileSync(file, JSON.stringify(stored, (_, v: unknown) => (v instanceof Float32Array ? Array.from(v) : v instanceof Map ? [...v] : v)));
}

/** Reads what saveCases wrote. */
export function loadCases(file: string): StoredCases {
  // A fresh clone has none: say where they come from instead of a stack trace.
  if (!existsSync(file)) throw new Error(`no stored cases at ${file}: \`npm run bench -- recognizer\` writes them (it needs the recordings: HIWAR_AUDIO_DIR, docs/sandbox.md#real-recordings-for-the-recognizer-bench)`);
  const raw = JSON.parse(readFileSync(file, 'utf8')) as StoredCases;
  const revive = (o: WordOpinions | null | undefined): WordOpinions | undefined =>
    o ? { ...o, probabilities: Float32Array.from(o.probabilities as unknown as number[]), distances: new Map(o.distances as unknown as [string, number][]) } : undefined;
  for (const c of raw.cases) c.heard = { singles: c.heard.singles.map(revive), joins: c.heard.joins.map(revive) };
  return raw;
}
