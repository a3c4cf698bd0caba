/**
 * The Arabic turn policy: reads what the caller has said so far in a turn and says whether it
 * sounds finished. Pure (text in, verdict out), so it is tested on a written corpus; the turn
 * detector (turns.ts) turns its verdict into waiting longer or ending sooner.
 *
 * - incomplete: the turn ends on a connector ("و", "بس", "لأن", "اللي"…), a filler or a
 *   hesitation ("يعني", "اممم"), an opening that needs more ("أبغى", "رقمي هو", "لحظة"), fewer
 *   digits than the number awaited, or a phone number begun ("صفر خمسة صفر…");
 * - complete: a closing ("شكرًا مع السلامة"), a yes or no to a yes/no question, a question
 *   ("كم رصيدي", "الفرع فين"), all the digits awaited;
 * - unknown: no cue either way (the detector keeps the ordinary silence).
 */
import { parseDigits } from '../text/parse-digits.ts';
import { isRepeatRequest, isUnsure, parseYesNo } from '../text/parse-yes-no.ts';
import { readSpoken, tokenize } from '../text/spoken-numbers.ts';
import {
  AMBIGUOUS_ALONE, ASKING_VERBS, CONDITIONALS, DIALECTS, EGYPTIAN_WHAT_FRAMES, HESITATION, INTENSIFIERS, NEGATORS, POLITE_AFTER_IF, POLITE_OPENERS, TURN_CUES, type Dialect, type DialectCues,
} from './turn-cues.ts';

/** What the policy says of a turn so far. */
export type TurnDecision = 'complete' | 'incomplete' | 'unknown';

/** The policy's decision and the cue that decided it (e.g. `connector:لان`, `digits:3/10`, `question:كم`). */
export interface TurnVerdict {
  decision: TurnDecision;
  cue: string;
}

/** A number the agent waits for (a digits task): how to tell it is all there. */
export interface DigitsExpectation {
  /** Exact number of digits. */
  length?: number;
  /** Fewer digits than this is not the whole number yet. */
  min?: number;
  /** Whether the digits so far make a whole number (a phone number that validates). */
  complete?: (digits: string) => boolean;
  /**
   * Whether a whole number may still go on into a longer one (a Somali mobile of eight digits, a
   * ninth making another): the turn then waits for the caller's pause instead of closing on it.
   */
  mayGoOn?: (digits: string) => boolean;
  /**
   * False when no more digits can make a whole number (a Saudi caller's "06…"): the turn is not
   * held for them, and the caller's pause ends it as any other. @default () => true
   */
  mayBecome?: (digits: string) => boolean;
  /**
   * The characters of the number said so far, when they are not digits alone (an IBAN whose bank
   * code is letters, said by name: "كيو إيه خمسة ثمانية دي أو إتش بي …"); they are counted against
   * `length` and passed to `complete` in place of the digits. @default parseDigits
   */
  read?: (transcript: string) => string | undefined;
  /**
   * The length awaited for what this transcript says, when the number names its own kind (an
   * IBAN said with its country's letters: `كي دبليو`, Kuwait's 28 characters after them, under a
   * task for a Saudi one); undefined keeps `length`.
   */
  lengthOf?: (transcript: string) => number | undefined;
}

/** What the agent waits for from the caller (a running task says it). */
export interface TurnExpectation {
  digits?: DigitsExpectation;
  /** The agent asked a yes/no question (a read-back, a confirmation). */
  yesNo?: boolean;
}

/** What the policy knows besides the caller's words. */
export interface TurnContext {
  expect?: TurnExpectation;
  /** The agent's last line: a yes/no question makes a yes or a no a whole turn. */
  lastAgentLine?: string;
}

/** A turn policy: the caller's transcript so far (finals of the turn, then the latest interim) and the context, to a verdict. */
export type TurnJudge = (transcript: string, context: TurnContext) => TurnVerdict;

/** Options of `arabicTurnPolicy`. */
export interface TurnCueOptions {
  /** Dialects whose cues count (the caller's dialect is rarely known in advance). */
  dialects?: readonly Dialect[];
  /** Your own cue words, added to every dialect's (e.g. a product's name for a closing). */
  extra?: Partial<DialectCues>;
}

/** Defaults of the Arabic turn policy: the cues of every dialect, nothing added. */
export const TURN_POLICY_DEFAULTS: Required<TurnCueOptions> = { dialects: DIALECTS, extra: {} };

type Phrase = string[];
const phrases = (words: Iterable<string>): Phrase[] => [...new Set([...words].map((w) => tokenize(w).join(' ')))].filter(Boolean).map((w) => w.split(' '));
const endsWith = (t: string[], p: Phrase) => p.length <= t.length && p.every((w, i) => t[t.length - p.length + i] === w);
const startsAt = (t: string[], at: number, p: Phrase) => p.length + at <= t.length && p.every((w, i) => t[at + i] === w);
const longestFirst = (a: Phrase, b: Phrase) => b.length - a.length;

interface Tables {
  connectors: Set<string>;
  fillers: Phrase[];
  awaiting: Phrase[];
  questions: Phrase[];
  finalQuestions: Set<string>;
  closings: Phrase[];
  asking: Set<string>;
  whatFrames: Set<string> | undefined;
  ambiguous: Set<string>;
  conditionals: Set<string>;
  polite: Set<string>;
  negators: Set<string>;
  intensifiers: Set<string>;
  openers: Phrase[];
}

function tables(o: Required<TurnCueOptions>): Tables {
  for (const d of o.dialects) if (!TURN_CUES[d]) throw new TypeError(`turn policy: unknown dialect "${String(d)}" (known: ${DIALECTS.join(', ')})`);
  const all = (k: keyof DialectCues) => [...o.dialects.flatMap((d) => TURN_CUES[d][k]), ...(o.extra[k] ?? [])];
  const words = (k: keyof DialectCues) => new Set(phrases(all(k)).map((p) => p.join(' ')));
  return {
    connectors: words('connectors'),
    fillers: phrases(all('fillers')).sort(longestFirst),
    awaiting: phrases(all('awaiting')).sort(longestFirst),
    questions: phrases(all('questions')).sort(longestFirst),
    finalQuestions: words('finalQuestions'),
    closings: phrases(all('closings')).sort(longestFirst),
    asking: new Set(phrases(ASKING_VERBS).map((p) => p.at(-1)!)),
    whatFrames: o.dialects.includes('egyptian') ? new Set(phrases(EGYPTIAN_WHAT_FRAMES).map((p) => p[0]!)) : undefined,
    ambiguous: new Set(phrases(AMBIGUOUS_ALONE).map((p) => p.join(' '))),
    conditionals: new Set(phrases(CONDITIONALS).map((p) => p[0]!)),
    polite: new Set(phrases(POLITE_AFTER_IF).map((p) => p[0]!)),
    negators: new Set(phrases(NEGATORS).map((p) => p[0]!)),
    intensifiers: new Set(phrases(INTENSIFIERS).map((p) => p[0]!)),
    openers: phrases(POLITE_OPENERS).sort(longestFirst),
  };
}

const verdict = (decision: TurnDecision, cue: string): TurnVerdict => ({ decision, cue });

/** A connector, also with و or ف written onto it ("واللي", "ولأن", "فلو"). */
function isConnector(t: Tables, w: string): boolean {
  return t.connectors.has(w) || (/^[وف]/.test(w) && w.length > 2 && t.connectors.has(w.slice(1)));
}

/** The digits said against the number awaited. */
function digitsVerdict(d: string, e: DigitsExpectation): TurnVerdict | undefined {
  if (e.complete?.(d) || (e.length !== undefined && d.length >= e.length)) {
    return e.mayGoOn?.(d) ? verdict('unknown', `digits:${d.length}:may-go-on`) : verdict('complete', `digits:${d.length}`);
  }
  if (e.mayBecome && !e.mayBecome(d)) return verdict('unknown', `digits:${d.length}:never-whole`);
  const need = e.length ?? e.min;
  if (need !== undefined && d.length < need) return verdict('incomplete', `digits:${d.length}/${need}`);
  // A check that fails on a short number: more digits may still come (a phone number: 15 at most).
  if (e.complete && d.length < 15) return verdict('incomplete', `digits:${d.length}`);
  return undefined;
}

/** Leading fillers, hesitations and politeness ("طيب، لو سمحت كم…") are skipped before a question word. */
function contentStart(t: Tables, tokens: string[]): number {
  let i = 0;
  for (;;) {
    const f = t.openers.find((p) => startsAt(tokens, i, p)) ?? t.fillers.find((p) => startsAt(tokens, i, p));
    if (f) i += f.length;
    else if (i < tokens.length && (HESITATION.test(tokens[i]!) || t.ambiguous.has(tokens[i]!))) i++;
    else return i;
  }
}

/**
 * The Arabic turn policy with the cue tables of `opts.dialects` (all five by default). The
 * checks run in order, the first that applies deciding: closing; trailing connector, filler or
 * opening; the number awaited; a yes or no to a yes/no question; "I don't know" or "say again"
 * when an answer is awaited; a question; a condition without its main clause; a phone number begun.
 */
export function arabicTurnPolicy(opts: TurnCueOptions = {}): TurnJudge {
  const t = tables({ ...TURN_POLICY_DEFAULTS, ...opts, extra: { ...opts.extra } });
  return (transcript, context) => {
    if (typeof transcript !== 'string') throw new TypeError(`turn policy: expected the transcript as a string, got ${typeof transcript}`);
    const tokens = tokenize(transcript);
    if (!tokens.length) return verdict('unknown', 'empty');
    const last = tokens.at(-1)!;
    const prev = tokens.at(-2);
    const bare = t.intensifiers.has(last) && tokens.length > 1 ? tokens.slice(0, -1) : tokens;
    const closing = t.closings.find((p) => endsWith(bare, p));
    if (closing) return verdict('complete', `closing:${closing.join(' ')}`);
    // Egyptian "عايز إيه" / "يعني إيه": a question, where elsewhere a trailing "إيه" is a filler.
    if (last === 'ايه' && prev && t.whatFrames?.has(prev)) return verdict('complete', `question:${prev} ايه`);
    if (isConnector(t, last)) return verdict('incomplete', `connector:${last}`);
    if (HESITATION.test(last)) return verdict('incomplete', `filler:${last}`);
    if (/[؟?]\s*$/.test(transcript)) return verdict('complete', 'question-mark');
    const expect = context.expect ?? {};
    const yesNo = expect.yesNo ?? (context.lastAgentLine ? isYesNoQuestion(context.lastAgentLine) : false);
    const filler = t.fillers.find((p) => endsWith(tokens, p));
    if (filler) {
      const alone = tokens.length === filler.length && t.ambiguous.has(filler.join(' '));
      if (!alone) return verdict('incomplete', `filler:${filler.join(' ')}`);
      if (!yesNo || !parseYesNo(transcript)) return verdict('unknown', `alone:${filler.join(' ')}`);
    }
    const awaiting = t.awaiting.find((p) => endsWith(tokens, p));
    const before = tokens.at(-1 - (awaiting?.length ?? 0));
    // "من هو" asks; "ما أبي", "مش عايز" refuse: neither waits for more.
    const asked = awaiting?.length === 1 && ['هو', 'هي'].includes(last) && t.questions.some((p) => endsWith(tokens.slice(0, -1), p));
    if (awaiting && !asked && !(before && t.negators.has(before))) return verdict('incomplete', `awaiting:${awaiting.join(' ')}`);
    const digits = parseDigits(transcript);
    const said = expect.digits?.read ? expect.digits.read(transcript) : digits;
    if (expect.digits && said !== undefined) {
      const length = expect.digits.lengthOf?.(transcript) ?? expect.digits.length;
      const v = digitsVerdict(said, { ...expect.digits, length });
      if (v) return v;
    }
    if (yesNo) {
      const answer = parseYesNo(transcript);
      if (answer) return verdict('complete', `yes-no:${answer}`);
    }
    // "ما أدري"، "مش متأكدة"، "عيد لو سمحت" when an answer is awaited: no value, but the whole
    // turn: the task asks again (or repeats) at once.
    if (yesNo || expect.digits) {
      if (isUnsure(transcript)) return verdict('complete', 'unsure');
      if (isRepeatRequest(transcript)) return verdict('complete', 'repeat');
    }
    const start = contentStart(t, tokens);
    // A question word with words after it, wherever it stands ("إذا ما وصلت وش أسوي").
    for (let i = start; i < tokens.length; i++) {
      const q = t.questions.find((p) => startsAt(tokens, i, p));
      if (q && i + q.length < tokens.length) return verdict('complete', `question:${q.join(' ')}`);
    }
    if (t.finalQuestions.has(last) && tokens.length > 1) {
      if (prev && t.asking.has(prev)) return verdict('incomplete', `open-question:${last}`);
      return verdict('complete', `question:${last}`);
    }
    const opener = tokens[start];
    if (opener && t.conditionals.has(opener) && !t.polite.has(tokens[start + 1] ?? '')) return verdict('incomplete', `open-condition:${opener}`);
    if (!expect.digits && digits !== undefined && readSpoken(transcript).at(-1)?.kind === 'number' && /^0\d{0,8}$/.test(digits)) {
      return verdict('incomplete', `mid-number:${digits.length}`);
    }
    return verdict('unknown', 'none');
  };
}

const ALL_QUESTIONS = phrases(DIALECTS.flatMap((d) => TURN_CUES[d].questions)).filter((p) => !['هل', 'واش'].includes(p.join(' ')));

/**
 * Whether the agent's line ends on a yes/no question: its last sentence asks ("؟") without a
 * question word ("هل تريد التجديد؟", "الرقم ٠٥٠…، صحيح؟"; not "كيف أقدر أساعدك؟").
 */
export function isYesNoQuestion(line: string): boolean {
  const m = line.match(/([^.!؟?\n]*)[؟?][^؟?]*$/u);
  if (!m) return false;
  const tokens = tokenize(m[1]!);
  return tokens.length > 0 && !tokens.some((_, i) => ALL_QUESTIONS.some((p) => startsAt(tokens, i, p)));
}
