/**
 * Splits streaming LLM text into pieces worth sending to synthesis: whole sentences when
 * possible, so the voice has natural prosody, but early enough that audio starts while the
 * model is still writing. Pure: push deltas in, get chunks out.
 */
import { RANK, WORDS_AHEAD, spaceRank, tokenize } from './chunk-cuts.ts';

/** Options of the chunker: how short a chunk may be, and the limit no chunk passes. */
export interface ChunkerOptions {
  /** A sentence end splits only once the chunk has this many characters. @default 20 */
  minChars?: number;
  /** The first chunk may be shorter, so the first audio comes sooner. @default 8 */
  firstMinChars?: number;
  /**
   * No chunk is longer than this, unless one unit (a number and its noun, a phone number, a
   * date, an amount) alone is: then that unit is the chunk. Without a sentence end within it, the
   * chunk is cut at the best space (see docs/arabic.md), decided once the four words after the
   * limit have arrived. @default 250
   */
  maxChars?: number;
}

/** Defaults of the chunker: chunks of 20–250 characters, the first from 8. */
export const CHUNKER_DEFAULTS: Required<ChunkerOptions> = { minChars: 20, firstMinChars: 8, maxChars: 250 };

const STRONG = new Set(['.', '!', '?', '؟', '…', '\n']);
const WEAK = new Set(['،', '؛', ',', ';', ':']);
// Abbreviations whose period does not end a sentence: a few single words, and any word written
// with more than one period (ص.ب. U.S.A. ر.س. a.m.).
const ABBREVIATIONS = /(?:^|[\s(])(?:د|م|ص|ه|ق|ج|أ|Dr|Mr|Mrs|Ms|St|No|vs|etc|(?:\p{L}{1,4}\.)+\p{L}{1,4})\.$/iu;
/** A forced cut looks for its place in the last half of the limit first, so chunks stay long. */
const PREFERRED_FROM = 0.5;
/** Characters past the limit a forced cut reads first (the four words ahead fit in them). */
const VIEW = 200;

/** Splits streaming model text into speakable chunks at sentence ends, never inside a number, date or abbreviation. */
export class SentenceChunker {
  private buffer = '';
  private emitted = 0;
  private readonly min: number;
  private readonly firstMin: number;
  private readonly max: number;

  constructor(opts: ChunkerOptions = {}) {
    this.min = opts.minChars ?? CHUNKER_DEFAULTS.minChars;
    this.firstMin = opts.firstMinChars ?? CHUNKER_DEFAULTS.firstMinChars;
    this.max = opts.maxChars ?? CHUNKER_DEFAULTS.maxChars;
    if (!(this.max >= 1)) throw new RangeError(`maxChars must be at least 1 (got ${opts.maxChars})`);
  }

  /** Adds text; returns the chunks now complete. */
  push(delta: string): string[] {
    this.buffer += delta;
    return this.take(false);
  }

  /**
   * The next chunk of the rest, at the end of the text: call it until it returns undefined (the
   * rest may be more than one chunk within `maxChars`), or use `end()`.
   */
  flush(): string | undefined {
    return this.take(true, 1)[0];
  }

  /** All chunks of the rest, at the end of the text. */
  end(): string[] {
    return this.take(true);
  }

  private take(final: boolean, limit = Infinity): string[] {
    const out: string[] = [];
    for (let cut = this.nextCut(final); cut > 0 && out.length < limit; cut = this.nextCut(final)) {
      const chunk = this.buffer.slice(0, cut).trim();
      this.buffer = this.buffer.slice(cut);
      if (chunk) {
        out.push(chunk);
        this.emitted++;
      }
    }
    if (final && !this.buffer.trim()) this.buffer = '';
    return out;
  }

  /** Index just after a split point, or 0 when the buffer must wait for more text. */
  private nextCut(final: boolean): number {
    const lead = this.buffer.length - this.buffer.trimStart().length;
    const b = this.buffer.slice(lead);
    if (!b) return 0;
    if (final && b.trimEnd().length <= this.max) return this.buffer.length;
    const cut = this.sentenceEnd(b) || (b.length > this.max ? forcedCut(b, this.max, final) : 0);
    return cut && lead + cut;
  }

  /** The first sentence end within the limit that makes a chunk long enough, else 0. */
  private sentenceEnd(b: string): number {
    const min = this.emitted === 0 ? this.firstMin : this.min;
    for (let i = 0; i < Math.min(b.length, this.max); i++) {
      const c = b[i]!;
      const strong = STRONG.has(c);
      if (!strong && !WEAK.has(c)) continue;
      // A split needs what follows: whitespace (so 3.5, 1,000 and example.com never split).
      const next = b[i + 1];
      if (c !== '\n' && next === undefined) return 0;
      if (c !== '\n' && !/\s/.test(next!)) continue;
      // Runs of punctuation ("؟!", "...") end together.
      let end = i + 1;
      while (end < b.length && (STRONG.has(b[end]!) || WEAK.has(b[end]!)) && b[end] !== '\n') end++;
      if (end > this.max) return 0;
      if (c === '.' && ABBREVIATIONS.test(b.slice(0, i + 1))) continue;
      const length = b.slice(0, end).trim().length;
      if (strong ? length >= min : length >= Math.max(min * 2, 40)) return end;
    }
    return 0;
  }
}

/**
 * Past the limit without a sentence end: the best-ranked space (`spaceRank`) that keeps the
 * chunk within `max`, looked for in the last half of the limit first (the latest of the best
 * rank there), unless only spaces next to a number are there and a better one lies earlier; when
 * a unit alone is longer than the limit, the cut after it. Returns 0 while the words that decide
 * have not all arrived.
 */
function forcedCut(b: string, max: number, final: boolean): number {
  // A window well past the limit holds the words that decide; a longer unit needs the whole buffer.
  const view = b.slice(0, max + VIEW);
  return (view.length < b.length && cutIn(view, max, false)) || cutIn(b, max, final);
}

function cutIn(b: string, max: number, final: boolean): number {
  const t = tokenize(b);
  // Words followed by whitespace are complete; at the end of the text all are.
  const complete = final || /\s$/.test(b) ? t.length : t.length - 1;
  const last = t.findLastIndex((w) => w.end <= max);
  // The ranks of the spaces within the limit read up to four words past them.
  if (last >= 0 && !final && complete < last + 1 + WORDS_AHEAD) return 0;
  let best = -1;
  let bestRank = 0;
  let early = -1;
  let earlyRank = 0;
  const from = Math.max(1, Math.floor(max * PREFERRED_FROM));
  for (let i = 0; i <= last && i + 1 < t.length; i++) {
    const rank = spaceRank(t, i, b);
    if (rank === RANK.never) continue;
    if (t[i]!.end >= from) {
      if (rank >= bestRank) [best, bestRank] = [i, rank];
    } else if (rank >= earlyRank) [early, earlyRank] = [i, rank];
  }
  if (early >= 0 && (best < 0 || (bestRank < RANK.nearNumber && earlyRank >= RANK.nearNumber))) [best, bestRank] = [early, earlyRank];
  if (best >= 0) return t[best]!.end;
  // A unit longer than the limit: it is the chunk, cut at the first space after it.
  for (let i = Math.max(0, last); i + 1 < t.length; i++) {
    if (i + 2 >= complete && !final) return 0;
    if (spaceRank(t, i, b) !== RANK.never) return t[i]!.end;
  }
  return final ? b.length : 0;
}

/** All chunks of a complete text (for tests and non-streaming replies). */
export function chunkText(text: string, opts?: ChunkerOptions): string[] {
  const c = new SentenceChunker(opts);
  return [...c.push(text), ...c.end()];
}
