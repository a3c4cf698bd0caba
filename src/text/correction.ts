/**
 * A caller who corrects a value in the same breath ("الأحد، لا لا قصدي الخميس", "ألف ريال، لا،
 * ألفين", "خمسة خمسة صفر، قصدي خمسة ستة صفر") means the value said after the correction: people
 * repair their own words right after the trouble, marked by "no", "I mean", "sorry" (Schegloff,
 * Jefferson and Sacks 1977, "The preference for self-correction in the organization of repair in
 * conversation", Language 53(2)). `parseYesNo` reads its answer so; the value parsers share this.
 */
import { CORRECTION_WORDS } from './yes-no-words.ts';
import { normalizeWord } from './spoken-numbers.ts';

/**
 * Words that restate a value: those of `parseYesNo` (أقصد، قصدي، أعني، عفوًا، آسف، سوري، بل) and
 * لا / لأ; not لحظة, which a caller dictating a number says while looking up the rest.
 */
const RESTATE_WORDS = new Set([...[...CORRECTION_WORDS].filter((w) => w !== 'لحظه'), 'لا', 'لاا']);

/** A value said after a correction, and the text before the run of correction words. */
export interface Restated<T> {
  value: T;
  /** The text after the correction word, from which `value` was read. */
  after: string;
  /** The text before the run of correction words ("الأحد" of "الأحد لا لا قصدي الخميس"). */
  before: string;
}

/**
 * The value `parse` reads after the last correction word that a value follows, with what was
 * said before it; undefined when no correction is followed by a value.
 */
export function restatedValue<T>(text: string, parse: (text: string) => T | undefined): Restated<T> | undefined {
  if (typeof text !== 'string') return undefined; // the parser's own reading says what is wrong
  const words = [...text.matchAll(/[\p{L}\p{M}]+/gu)];
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i]!;
    if (!RESTATE_WORDS.has(normalizeWord(word[0]))) continue;
    const after = text.slice(word.index + word[0].length);
    const value = parse(after);
    if (value === undefined) continue;
    let first = i;
    while (first > 0 && RESTATE_WORDS.has(normalizeWord(words[first - 1]![0]))) first--;
    return { value, after, before: text.slice(0, words[first]!.index) };
  }
  return undefined;
}
