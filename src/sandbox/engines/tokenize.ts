/**
 * Splits text to be voiced into words, pauses and break tags, keeping each piece's character
 * range in the original string (alignments must map back onto the submitted text exactly).
 */
export type Piece =
  | { kind: 'word'; text: string; start: number; end: number }
  | { kind: 'pause'; seconds: number; start: number; end: number }
  | { kind: 'space'; start: number; end: number };

// Pause lengths after punctuation, close to what a reader leaves.
const PAUSES: Record<string, number> = {
  '،': 0.2, ',': 0.2, '؛': 0.25, ';': 0.25, ':': 0.2,
  '.': 0.35, '!': 0.35, '?': 0.35, '؟': 0.35, '…': 0.3, '\n': 0.35,
};

const BREAK = /<break\s+time\s*=\s*["']?(\d+(?:\.\d+)?)\s*(ms|s)["']?\s*\/?>/giy;
/** The longest pause a break tag may ask for. */
export const MAX_BREAK_SECONDS = 10;

export function tokenize(text: string): Piece[] {
  const pieces: Piece[] = [];
  let i = 0;
  while (i < text.length) {
    BREAK.lastIndex = i;
    const br = BREAK.exec(text);
    if (br) {
      const value = Number(br[1]) / (br[2]!.toLowerCase() === 'ms' ? 1000 : 1);
      pieces.push({ kind: 'pause', seconds: Math.min(value, MAX_BREAK_SECONDS), start: i, end: i + br[0].length });
      i += br[0].length;
      continue;
    }
    const ch = text[i]!;
    if (ch in PAUSES) {
      pieces.push({ kind: 'pause', seconds: PAUSES[ch]!, start: i, end: i + 1 });
      i++;
      continue;
    }
    if (/\s/u.test(ch)) {
      pieces.push({ kind: 'space', start: i, end: i + 1 });
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && !/\s/u.test(text[j]!) && !(text[j]! in PAUSES) && text[j] !== '<') j++;
    if (j === i) j = i + 1; // a lone '<' that is not a break tag
    const word = text.slice(i, j);
    // Quotes, brackets and other symbols alone are not spoken.
    if (/[\p{L}\p{N}]/u.test(word)) pieces.push({ kind: 'word', text: word, start: i, end: j });
    else pieces.push({ kind: 'space', start: i, end: j });
    i = j;
  }
  return pieces;
}

export { normalizeForMatch } from '../../text/match.ts';
