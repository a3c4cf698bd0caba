/**
 * Carrier and voicemail phrases found in a transcript. Recognizers drop or add small words and
 * clitics, so a phrase matches when most of its words appear in order, each compared without
 * the article and a leading conjunction or preposition (و، ب، ف، ل + ال).
 */
import { normalizeForMatch } from '../text/match.ts';
import type { AmdPhrase } from './options.ts';

/** A word without a leading و/ب/ف/ل and ال, when what is left is still a word. */
function stem(word: string): string {
  const m = /^(?:[وبفل]?ال|[وبفل])(.{3,})$/u.exec(word);
  return m ? m[1]! : word;
}

const words = (text: string) => normalizeForMatch(text).split(' ').filter(Boolean).map(stem);

/** Compiled phrases, ready to match transcripts against. */
export class PhraseTable {
  private readonly table: { phrase: AmdPhrase; words: string[] }[];

  constructor(phrases: AmdPhrase[], private readonly coverage: number) {
    if (!(coverage > 0 && coverage <= 1)) throw new RangeError(`phraseCoverage must be in (0, 1], not ${coverage}`);
    this.table = phrases.map((phrase) => ({ phrase, words: words(phrase.text) })).filter((p) => p.words.length);
  }

  /** The phrase the transcript holds best (most words matched), if any passes. */
  match(transcript: string): AmdPhrase | undefined {
    const heard = words(transcript);
    let best: { phrase: AmdPhrase; n: number } | undefined;
    for (const { phrase, words: ws } of this.table) {
      const n = inOrder(ws, heard);
      // Short phrases must be heard whole: two words of three would be too loose.
      const need = ws.length <= 2 ? ws.length : Math.ceil(this.coverage * ws.length);
      if (n >= need && (!best || n > best.n)) best = { phrase, n };
    }
    return best?.phrase;
  }
}

/** How many of the phrase's words appear in the transcript in order (greedy). */
function inOrder(phrase: string[], heard: string[]): number {
  let best = 0;
  for (let from = 0; from < heard.length; from++) {
    let n = 0;
    let at = from;
    for (const w of phrase) {
      const k = heard.indexOf(w, at);
      if (k < 0) continue;
      n++;
      at = k + 1;
    }
    best = Math.max(best, n);
    if (best === phrase.length) break;
  }
  return best;
}
