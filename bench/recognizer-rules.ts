/**
 * Decision rules for the spoken-word vocabulary, tried on the word bench's stored opinions
 * (`.tmp/word-cases.json`, written by `npm run bench -- recognizer`; or a trial's file): no
 * recording is heard again and nothing is trained. Each rule scores every stretch of speech
 * (its word and how sure); a case is heard when every stretch passes the band's threshold
 * (joins as the recognizer makes them, word-fusion.ts `wordsOf`). For each rule it prints:
 * - the trade-off on all six speakers: the most known words heard at each count of people's
 *   unknown words rejected (optimistic: the threshold is set on the cases it is measured on);
 * - nested, the honest figure: for each held-out speaker, the rule's parameter and the band's
 *   threshold chosen on the other five alone (the lowest threshold that rejects `target` of their
 *   unknown words, the parameter that then hears the most of their known words).
 * `--curve r:w:t` also prints the rows on all six at each threshold, the word ranked at
 * classifier weight r, its sureness at weight w and temperature t (word-fusion.ts `Sureness`).
 * Usage: npm run bench -- recognizer-rules [cases.json] [--target 0.9] [--curve 0.1:0.7:1]
 */
import { fileURLToPath } from 'node:url';
import { fuseOpinions, fusedLogs as fused, wordsOf, type WordOpinions } from '../src/sandbox/engines/word-fusion.ts';
import type { WordBand } from '../src/sandbox/engines/word-features.ts';
import { UNKNOWN_CLASS } from '../src/sandbox/engines/word-model.ts';
import { VOCABULARY_DEFAULTS } from '../src/sandbox/engines/vocabulary.ts';
import { loadCases, type BenchCase, type TemplateLength } from './recognizer-choice.ts';
import { above, rightAt, stepAt, steps, thresholdFor, type Steps } from './rule-steps.ts';

const KNOWN: Record<WordBand, string> = { wide: '16 kHz', phone: '8 kHz mu-law, 300–3400 Hz, noise 20 dB' };
const HELD: Record<WordBand, string> = { wide: 'unknown: human word held out', phone: 'unknown: human word held out, phone line' };
const ESPEAK = 'unknown: espeak words';

/** What a rule may know besides the opinions: the templates' lengths of the fold (held-out speaker's left out). */
interface Context {
  /** Per band and word: mean and spread of the log length of its templates. */
  lengths: Map<string, { mean: number; sd: number }>;
}

/** A rule with parameter p: the stretch's word and a score (higher: surer), or undefined. */
interface Rule {
  name: string;
  params: number[];
  score: (o: WordOpinions, p: number, ctx: Context) => { word: string; score: number } | undefined;
}

/** Every class's fused log probability (word-fusion.ts fusedLogs; the stored opinions always have a template). */
const fusedLogs = (o: WordOpinions, weight: number, temperature = VOCABULARY_DEFAULTS.temperature) => fused(o, weight, temperature)!;
const shippedWeight = (o: WordOpinions) => VOCABULARY_DEFAULTS.modelWeight[o.band];

/** The features of one stretch the combined rules use (the fused opinion at the shipped weight). */
function features(o: WordOpinions, ctx: Context, k = 3) {
  const logs = fusedLogs(o, shippedWeight(o));
  const words = o.classes.map((w, i) => [w, logs[i]!] as const).filter(([w]) => w !== UNKNOWN_CLASS).sort((a, b) => b[1] - a[1]);
  const [best, second] = words;
  const word = best![0];
  const dist = [...o.distances].sort((a, b) => a[1] - b[1]);
  const d1 = o.distances.get(word)!;
  const others = dist.filter(([w]) => w !== word).map(([, d]) => d);
  const cohort = others.slice(0, k).reduce((s, d) => s + d, 0) / Math.max(1, Math.min(k, others.length));
  const netWord = o.classes.reduce((b, w, i) => (o.probabilities[i]! > o.probabilities[o.classes.indexOf(b)]! ? w : b), o.classes[0]!);
  const len = ctx.lengths.get(`${o.band}|${word}`);
  const lengthZ = len && o.frames ? Math.abs(Math.log(o.frames) - len.mean) / Math.max(0.05, len.sd) : 0;
  return {
    word,
    fused: best![1],
    margin: best![1] - (second?.[1] ?? -30),
    cohort: (cohort - d1) / cohort,
    agree: netWord === word && dist[0]![0] === word ? 1 : 0,
    netUnknown: Math.log(o.probabilities[o.classes.indexOf(UNKNOWN_CLASS)]! + 1e-6),
    netWord: Math.log(o.probabilities[o.classes.indexOf(word)]! + 1e-6),
    noWord: d1 / o.noWord,
    lengthZ,
  };
}
type Features = ReturnType<typeof features>;
const FEATURE_NAMES = ['fused', 'margin', 'cohort', 'agree', 'netUnknown', 'netWord', 'noWord', 'lengthZ'] as const;

/** The fused score plus lambda times one feature (the parameter is lambda). */
const plus = (name: string, f: (x: Features) => number, params: number[]): Rule => ({
  name,
  params,
  score: (o, p, ctx) => {
    const x = features(o, ctx);
    return { word: x.word, score: x.fused + p * f(x) };
  },
});

const PAIRS = [0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8].flatMap((w) => [1, 1.5, 2].map((t) => [w, t] as const));
const RULES: Rule[] = [
  { name: 'the fourth round\'s: the best word\'s fused probability at the ranking weights (modelWeight)', params: [0], score: (o) => { const f = fuseOpinions(o, shippedWeight(o), 1); return f && { word: f.word, score: f.score }; } },
  { name: 'fused probability, weight per fold', params: [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9], score: (o, w) => { const f = fuseOpinions(o, w, 1); return f && { word: f.word, score: f.score }; } },
  { name: 'fused probability, temperature per fold', params: [0.5, 0.75, 1, 1.5, 2, 3], score: (o, t) => { const f = fuseOpinions(o, shippedWeight(o), t); return f && { word: f.word, score: f.score }; } },
  {
    name: 'word at the shipped weight, its probability at weight p',
    params: [0.2, 0.3, 0.5, 0.7, 0.9],
    score: (o, w) => {
      const f = fuseOpinions(o, shippedWeight(o), 1);
      if (!f) return undefined;
      const logs = fusedLogs(o, w);
      return { word: f.word, score: Math.exp(logs[o.classes.indexOf(f.word)]!) };
    },
  },
  {
    // The parameter indexes PAIRS: a weight and a temperature for the probability.
    name: 'word at the shipped weight, its probability at a weight and temperature per fold',
    params: PAIRS.map((_, i) => i),
    score: (o, i) => {
      const f = fuseOpinions(o, shippedWeight(o), 1);
      if (!f) return undefined;
      const [w, t] = PAIRS[i]!;
      return { word: f.word, score: Math.exp(fusedLogs(o, w, t)[o.classes.indexOf(f.word)]!) };
    },
  },
  plus('fused + λ·margin to the second word', (x) => x.margin, [0.25, 0.5, 1, 2]),
  plus('fused + λ·cohort gap (3 nearest other words)', (x) => x.cohort, [1, 3, 10, 30]),
  plus('fused + λ·both opinions agree', (x) => x.agree, [0.5, 1, 3, 10]),
  plus('fused − λ·classifier log p(no word)', (x) => -x.netUnknown, [0.1, 0.3, 1]),
  plus('fused + λ·classifier log p(word)', (x) => x.netWord, [0.1, 0.3, 1]),
  plus('fused − λ·distance / no-word limit', (x) => -x.noWord, [0.5, 1, 3, 10]),
  plus('fused − λ·length off the templates (z)', (x) => x.lengthZ, [0.1, 0.3, 1]),
  {
    name: 'cohort gap alone (templates), k nearest other words',
    params: [1, 2, 3, 5],
    score: (o, k, ctx) => {
      const x = features(o, ctx, k);
      return { word: x.word, score: x.cohort };
    },
  },
];

/** Sums over the held-out folds at each fold's threshold: known words right, unknown words rejected, the sandbox's unknown words rejected. */
function tally() {
  const n = { known: 0, knownN: 0, rejected: 0, unknownN: 0, espeak: 0, espeakN: 0 };
  const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(0)} % (${a}/${b})`;
  return {
    add(known: Steps[], unknown: Steps[], espeak: Steps[], t: number) {
      n.known += rightAt(known, t);
      n.knownN += known.length;
      n.rejected += rightAt(unknown, t);
      n.unknownN += unknown.length;
      n.espeak += rightAt(espeak, t);
      n.espeakN += espeak.length;
    },
    line: (band: WordBand) => `known ${pct(n.known, n.knownN)}, unknown rejected ${pct(n.rejected, n.unknownN)}${band === 'wide' ? `, espeak rejected ${pct(n.espeak, n.espeakN)}` : ''}`,
  };
}

function contextOf(lengths: TemplateLength[], fold: string): Context {
  const by = new Map<string, number[]>();
  for (const l of lengths) {
    if (l.source === fold) continue;
    const k = `${l.band}|${l.word}`;
    by.set(k, [...(by.get(k) ?? []), Math.log(l.frames)]);
  }
  const out = new Map<string, { mean: number; sd: number }>();
  for (const [k, v] of by) {
    const mean = v.reduce((s, x) => s + x, 0) / v.length;
    out.set(k, { mean, sd: Math.sqrt(v.reduce((s, x) => s + (x - mean) ** 2, 0) / v.length) });
  }
  return { lengths: out };
}

const args = process.argv.slice(2);
const ti = args.indexOf('--target');
const target = ti >= 0 ? Number(args[ti + 1]) : 0.9;
const file = args.find((a, i) => !a.startsWith('--') && !['--target', '--curve'].includes(args[i - 1] ?? '')) ?? fileURLToPath(new URL('../.tmp/word-cases.json', import.meta.url));
const stored = (() => {
  try {
    return loadCases(file);
  } catch (err) {
    console.error(`bench recognizer-rules: ${(err as Error).message}`);
    process.exit(1);
  }
})();
const { cases, lengths } = stored;
const folds = [...new Set(cases.map((c) => c.fold))];
const contexts = new Map(folds.map((f) => [f, contextOf(lengths, f)]));
console.log(`${cases.length} cases from ${file}; nested target: ${Math.round(target * 100)} % of the other five's unknown words rejected`);

for (const rule of RULES) {
  console.log(`\n${rule.name}`);
  // Steps per parameter and band, every case.
  const byParam = rule.params.map((p) => cases.map((c) => steps(c, (o) => rule.score(o, p, contexts.get(c.fold)!))));
  for (const band of ['wide', 'phone'] as const) {
    const sel = (ss: Steps[], cond: string, fold?: string, not?: string) => ss.filter((s) => s.c.condition === cond && (!fold || s.c.fold === fold) && (!not || s.c.fold !== not));
    // All six: the most known words heard at each count of unknown words rejected.
    const points: string[] = [];
    for (const [pi, p] of rule.params.entries()) {
      const known = sel(byParam[pi]!, KNOWN[band]);
      const unknown = sel(byParam[pi]!, HELD[band]);
      const best = new Map<number, number>();
      for (const t of [Number.NEGATIVE_INFINITY, ...new Set(unknown.flatMap((s) => s.at.slice(0, -1)).map(above))]) {
        const r = rightAt(unknown, t);
        best.set(r, Math.max(best.get(r) ?? 0, rightAt(known, t)));
      }
      // Monotone: rejecting at least r.
      const row = [16, 18, 20, 21, 22].map((r) => Math.max(0, ...[...best].filter(([k]) => k >= r).map(([, v]) => v)));
      points.push(`${p}: ${row.join('/')}`);
    }
    // Nested: per held-out fold, parameter and threshold from the other five.
    const sum = tally();
    const chosen: string[] = [];
    for (const fold of folds) {
      let pick: { pi: number; t: number; right: number } | undefined;
      for (const pi of rule.params.keys()) {
        const t = thresholdFor(sel(byParam[pi]!, HELD[band], undefined, fold), target);
        const right = rightAt(sel(byParam[pi]!, KNOWN[band], undefined, fold), t);
        if (!pick || right > pick.right) pick = { pi, t, right };
      }
      const ss = byParam[pick!.pi]!;
      sum.add(sel(ss, KNOWN[band], fold), sel(ss, HELD[band], fold), band === 'wide' ? sel(ss, ESPEAK, fold) : [], pick!.t);
      chosen.push(`${rule.params[pick!.pi]}@${pick!.t.toFixed(3)}`);
    }
    console.log(`  ${band}: all six, known heard at 16/18/20/21/22 of 24 unknown rejected, per parameter: ${points.join('  ')}`);
    console.log(`  ${band}: nested: ${sum.line(band)}  [${chosen.join(' ')}]`);
  }
}

/**
 * A learned rule: a logistic regression on the stretch's features (FEATURE_NAMES), trained on
 * the speakers it may see: for the held-out speaker F, on the other five; and for choosing F's
 * threshold on another speaker G's cases, on the four left without F and G (so every score the
 * choice sees is of a speaker the model did not see).
 */
function logistic(rows: { x: number[]; y: number }[], l2 = 0.1, epochs = 300): (x: number[]) => number {
  const d = rows[0]?.x.length ?? 0;
  const mean = Array.from({ length: d }, (_, j) => rows.reduce((s, r) => s + r.x[j]!, 0) / rows.length);
  const sd = Array.from({ length: d }, (_, j) => Math.sqrt(rows.reduce((s, r) => s + (r.x[j]! - mean[j]!) ** 2, 0) / rows.length) || 1);
  const z = (x: number[]) => x.map((v, j) => (v - mean[j]!) / sd[j]!);
  const w = new Array<number>(d + 1).fill(0);
  const pos = rows.filter((r) => r.y === 1).length;
  // Balanced classes: the few unknown words count as much as the many known ones.
  const weightOf = (y: number) => (y === 1 ? rows.length / (2 * Math.max(1, pos)) : rows.length / (2 * Math.max(1, rows.length - pos)));
  const zs = rows.map((r) => z(r.x));
  for (let e = 0; e < epochs; e++) {
    const g = new Array<number>(d + 1).fill(0);
    rows.forEach((r, i) => {
      const s = w[d]! + zs[i]!.reduce((a, v, j) => a + v * w[j]!, 0);
      const err = (1 / (1 + Math.exp(-s)) - r.y) * weightOf(r.y);
      zs[i]!.forEach((v, j) => (g[j]! += err * v));
      g[d]! += err;
    });
    for (let j = 0; j <= d; j++) w[j]! -= (0.5 * (g[j]! / rows.length + (j < d ? l2 * w[j]! : 0)));
  }
  return (x) => w[d]! + z(x).reduce((a, v, j) => a + v * w[j]!, 0);
}

{
  const vec = (x: Features) => FEATURE_NAMES.map((n) => x[n]);
  const feats = new Map<WordOpinions, Features>();
  const featOf = (o: WordOpinions, fold: string) => {
    let f = feats.get(o);
    if (!f) feats.set(o, (f = features(o, contexts.get(fold)!)));
    return f;
  };
  for (const band of ['wide', 'phone'] as const) {
    const sum = tally();
    const weightsSeen: string[] = [];
    for (const fold of folds) {
      const inBand = (c: BenchCase) => c.band === band;
      const model = (without: string[]) => {
        const rows: { x: number[]; y: number }[] = [];
        for (const c of cases.filter(inBand)) {
          if (without.includes(c.fold) || c.condition === ESPEAK) continue;
          for (const o of c.heard.singles) if (o) rows.push({ x: vec(featOf(o, c.fold)), y: c.expected !== undefined && featOf(o, c.fold).word === c.expected ? 1 : 0 });
        }
        return logistic(rows);
      };
      const scorer = (m: (x: number[]) => number, fold2: string) => (o: WordOpinions) => {
        const x = featOf(o, fold2);
        return { word: x.word, score: m(vec(x)) };
      };
      // The threshold from the other five, each scored by a model that never saw it.
      const others = folds.filter((f) => f !== fold);
      const otherSteps = others.flatMap((g) => {
        const m = model([fold, g]);
        return cases.filter((c) => c.fold === g && inBand(c)).map((c) => steps(c, scorer(m, g)));
      });
      const t = thresholdFor(otherSteps.filter((s) => s.c.condition === HELD[band]), target);
      const own = model([fold]);
      const mine = cases.filter((c) => c.fold === fold && (inBand(c) || c.condition === ESPEAK)).map((c) => steps(c, scorer(own, fold)));
      const of = (cond: string) => mine.filter((s) => s.c.condition === cond);
      sum.add(of(KNOWN[band]), of(HELD[band]), band === 'wide' ? of(ESPEAK) : [], t);
      weightsSeen.push(t.toFixed(2));
    }
    if (band === 'wide') console.log(`\nlogistic regression on ${FEATURE_NAMES.join(', ')} (nested twice)`);
    console.log(`  ${band}: nested: ${sum.line(band)}  [thresholds ${weightsSeen.join(' ')}]`);
  }
}

// --curve <weight>: the fused probability at one classifier weight (both bands), all six: each threshold's rows.
const ci = args.indexOf('--curve');
if (ci >= 0) {
  // <weight> or <rank weight>:<score weight>[:<score temperature>] (the word from the first, its probability from the second).
  const parts = (args[ci + 1] ?? '').split(':').map(Number);
  const [r, w, temp] = [parts[0]!, parts[1] ?? parts[0]!, parts[2] ?? 1];
  const ss = cases.map((c) =>
    steps(c, (o) => {
      const f = fuseOpinions(o, r, 1);
      return f && { word: f.word, score: Math.exp(fusedLogs(o, w, temp)[o.classes.indexOf(f.word)]!) };
    }),
  );
  const conds = [KNOWN.wide, KNOWN.phone, HELD.wide, HELD.phone, ESPEAK];
  console.log(`\nweight ${r}:${w}:${temp}, all six: threshold, then ${conds.join(' | ')}`);
  // Known words: right, and in brackets wrong (heard as another word).
  const wrongAt = (sel: Steps[], t: number) => sel.reduce((n, s) => n + (s.heard[stepAt(s, t)] && !s.right[stepAt(s, t)] ? 1 : 0), 0);
  const cell = (cond: string, t: number) => {
    const sel = ss.filter((s) => s.c.condition === cond);
    return cond === KNOWN.wide || cond === KNOWN.phone ? `${rightAt(sel, t)} (${wrongAt(sel, t)})` : `${rightAt(sel, t)}`;
  };
  for (let t = 0.2; t < 0.996; t += 0.05) console.log(`  ${t.toFixed(2)}  ${conds.map((cond) => cell(cond, t)).join('  ')}`);
}

/**
 * Per-word thresholds on the shipped sureness (nested): for the held-out speaker F, each word's
 * threshold is the lowest that rejects every one of the other five's unknown words heard as that
 * word, and at least `floor` (the band's threshold rejecting `floorTarget` of them); words no
 * unknown word was heard as keep the floor.
 */
{
  const { modelWeight, temperature, surenessWeight, surenessTemperature } = VOCABULARY_DEFAULTS;
  const score = (o: WordOpinions) => {
    const f = fuseOpinions(o, modelWeight[o.band], temperature, { weight: surenessWeight[o.band], temperature: surenessTemperature[o.band] });
    return f && { word: f.word, score: f.score };
  };
  const heardAs = (c: BenchCase, threshold: (word: string) => number) => {
    const pass = (o: WordOpinions | undefined) => {
      const s = o && score(o);
      return s && s.score >= threshold(s.word) ? { word: s.word, confidence: s.score } : undefined;
    };
    return wordsOf(c.heard.singles.length, (i) => pass(c.heard.singles[i]), (i) => pass(c.heard.joins[i]))?.map((w) => w.word);
  };
  const isRight = (c: BenchCase, words: string[] | undefined) => (c.expected === undefined ? !words : words?.length === 1 && words[0] === c.expected);
  console.log('\nper-word thresholds on the shipped sureness (nested): floor for the share of unknown words rejected, then each word above every unknown word heard as it');
  for (const floorTarget of [0.5, 0.67, 0.75]) {
    const out: string[] = [];
    for (const band of ['wide', 'phone'] as const) {
      let known = 0;
      let rejected = 0;
      let espeak = 0;
      for (const fold of folds) {
        const others = cases.filter((c) => c.fold !== fold);
        const unknown = others.filter((c) => c.condition === HELD[band]);
        const floor = thresholdFor(unknown.map((c) => steps(c, score)), floorTarget);
        const per = new Map<string, number>();
        for (const c of unknown) {
          const s = c.heard.singles.map((o) => o && score(o)).filter((x) => x !== undefined);
          for (const x of s) per.set(x.word, Math.max(per.get(x.word) ?? floor, x.score + 1e-6));
        }
        const threshold = (w: string) => per.get(w) ?? floor;
        const mine = cases.filter((c) => c.fold === fold);
        known += mine.filter((c) => c.condition === KNOWN[band] && isRight(c, heardAs(c, threshold))).length;
        rejected += mine.filter((c) => c.condition === HELD[band] && isRight(c, heardAs(c, threshold))).length;
        if (band === 'wide') espeak += mine.filter((c) => c.condition === ESPEAK && isRight(c, heardAs(c, threshold))).length;
      }
      out.push(`${band}: known ${known}/78, unknown rejected ${rejected}/24${band === 'wide' ? `, espeak ${espeak}/30` : ''}`);
    }
    console.log(`  floor ${floorTarget}: ${out.join('; ')}`);
  }
}
