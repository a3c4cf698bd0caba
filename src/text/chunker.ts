/**
 * Splits streaming LLM text into pieces worth sending to synthesis: whole sentences when
 * possible, so the voice has natural prosody, but early enough that audio starts while the
 * model is still writing. Pure: push deltas in, get chunks out.
 */
export interface ChunkerOptions {
  /** A sentence end splits only once the chunk has this many characters. @default 20 */
  minChars?: number;
  /** The first chunk may be shorter, so the first audio comes sooner. @default 8 */
  firstMinChars?: number;
  /**
   * Past this without a sentence end, split at a space that keeps numbers whole (read up to 40
   * characters further to choose it). @default 250
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
// A space touching a number (its noun, its currency, the month of a date, the next group of a
// phone number) is no place to cut: each chunk is normalized alone.
const NUMBER_EDGE = /[\p{Nd}%٪]/u;
const NUMBER_START = /[\p{Nd}+]/u;
/** Words before a number that stay with it (a reference is announced up to four words before it). */
const WORDS_BEFORE_NUMBER = 4;
/** Characters read past the maximum before a forced cut is chosen. */
const LOOKAHEAD = 40;

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
  }

  /** Adds text; returns the chunks now complete. */
  push(delta: string): string[] {
    this.buffer += delta;
    const out: string[] = [];
    for (let cut = this.nextCut(); cut > 0; cut = this.nextCut()) {
      const chunk = this.buffer.slice(0, cut).trim();
      this.buffer = this.buffer.slice(cut);
      if (chunk) {
        out.push(chunk);
        this.emitted++;
      }
    }
    return out;
  }

  /** The rest, at the end of the text. */
  flush(): string | undefined {
    const rest = this.buffer.trim();
    this.buffer = '';
    if (rest) this.emitted++;
    return rest || undefined;
  }

  /** Index just after a split point, or 0 when the buffer must wait for more text. */
  private nextCut(): number {
    const min = this.emitted === 0 ? this.firstMin : this.min;
    const b = this.buffer;
    // Sentence ends far past the maximum do not count: the forced cut comes first there.
    for (let i = 0; i < Math.min(b.length, this.max + LOOKAHEAD); i++) {
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
      if (c === '.' && ABBREVIATIONS.test(b.slice(0, i + 1))) continue;
      const length = b.slice(0, end).trim().length;
      if (strong ? length >= min : length >= Math.max(min * 2, 40)) return end;
    }
    if (b.length > this.max + LOOKAHEAD) return this.forcedCut(b);
    return 0;
  }

  /**
   * Past the maximum without a sentence end: the last space before it that keeps a number with
   * what belongs to it (its noun, currency, date, phone groups, and the words announcing it, as
   * in "المنتهية بـ 4821"), else the first such space after it; failing that, a space that at
   * least does not touch a number; failing that, the last space before the maximum.
   * Decided on the first `max + LOOKAHEAD` characters only, so streamed text is cut as the
   * whole text is.
   */
  private forcedCut(b: string): number {
    const view = b.slice(0, this.max + LOOKAHEAD);
    const edge = (i: number) => view[i] !== ' ' || NUMBER_EDGE.test(view[i - 1]!) || NUMBER_START.test(view[i + 1] ?? '');
    const announces = (i: number) => {
      const next = view.slice(i + 1).split(' ', WORDS_BEFORE_NUMBER);
      return next.length < WORDS_BEFORE_NUMBER || next.some((w) => NUMBER_START.test(w.replace(/^[وفبلك]ـ?/, '')[0] ?? ''));
    };
    // Best: away from numbers and the words announcing them; then: not touching a number.
    for (const ok of [(i: number) => !edge(i) && !announces(i), (i: number) => !edge(i)]) {
      for (let i = this.max - 1; i > 0; i--) if (ok(i)) return i + 1;
      for (let i = this.max; i < view.length - 1; i++) if (ok(i)) return i + 1;
    }
    const space = b.lastIndexOf(' ', this.max);
    return space > 0 ? space + 1 : this.max;
  }
}

/** All chunks of a complete text (for tests and non-streaming replies). */
export function chunkText(text: string, opts?: ChunkerOptions): string[] {
  const c = new SentenceChunker(opts);
  const out = c.push(text);
  const rest = c.flush();
  return rest ? [...out, rest] : out;
}
