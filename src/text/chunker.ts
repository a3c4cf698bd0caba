/**
 * Splits streaming LLM text into pieces worth sending to synthesis: whole sentences when
 * possible, so the voice has natural prosody, but early enough that audio starts while the
 * model is still writing. Pure: push deltas in, get chunks out.
 */
export interface ChunkerOptions {
  /** A sentence end splits only once the chunk has this many characters. */
  minChars?: number;
  /** The first chunk may be shorter, so the first audio comes sooner. */
  firstMinChars?: number;
  /** Past this without a sentence end, split at the last space. */
  maxChars?: number;
}

const STRONG = new Set(['.', '!', '?', '؟', '…', '\n']);
const WEAK = new Set(['،', '؛', ',', ';', ':']);
// Abbreviations whose period does not end a sentence.
const ABBREVIATIONS = /(?:^|[\s(])(?:د|م|ص|ه|ق|ج|أ|Dr|Mr|Mrs|Ms|St|No|vs|etc|e\.g|i\.e|U\.S|a\.m|p\.m)\.$/i;

export class SentenceChunker {
  private buffer = '';
  private emitted = 0;
  private readonly min: number;
  private readonly firstMin: number;
  private readonly max: number;

  constructor(opts: ChunkerOptions = {}) {
    this.min = opts.minChars ?? 20;
    this.firstMin = opts.firstMinChars ?? 8;
    this.max = opts.maxChars ?? 250;
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
    for (let i = 0; i < b.length; i++) {
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
    if (b.length > this.max) {
      const space = b.lastIndexOf(' ', this.max);
      return space > 0 ? space + 1 : this.max;
    }
    return 0;
  }
}

/** All chunks of a complete text (for tests and non-streaming replies). */
export function chunkText(text: string, opts?: ChunkerOptions): string[] {
  const c = new SentenceChunker(opts);
  const out = c.push(text);
  const rest = c.flush();
  return rest ? [...out, rest] : out;
}
