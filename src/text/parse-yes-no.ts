/**
 * `parseYesNo`: the caller's answer to a yes/no question, in MSA and the dialects. Rules, in
 * order (docs/arabic-parsing.md#yes-or-no):
 * 1. "say again" or "I don't know" anywhere → undefined; so is a short question back ("نعم؟",
 *    "صح؟": Egyptian "نعم؟" is "pardon?");
 * 2. a self-correction ("لا لا أقصد نعم"): the answer after the last correction word counts;
 * 3. phrases first ("ما في مشكلة" is yes, "مو هذا" no), then a negator before a yes word is no
 *    ("مو صحيح", "مش مظبوط"), then the words alone;
 * 4. weak words (آه, طيب, أكيد, طبعًا) count only when nothing else answers ("أكيد لا" is no);
 * 5. yes and no both said, with no correction word → undefined (ask again).
 */
import { normalizeWord, tokenize } from './spoken-numbers.ts';
import {
  CORRECTION_WORDS, NEGATORS, NO_PHRASES, NO_WORDS, REPEAT_PHRASES, UNSURE_PHRASES, WANT_WORDS, WEAK_YES_WORDS, YES_PHRASES, YES_WORDS,
} from './yes-no-words.ts';

/** A yes/no answer. */
export type YesNo = 'yes' | 'no';

/** Yes and no phrases, longest first ("مش هو ده" is no before "هو ده" is yes). */
const PHRASES: [string, boolean][] = [...YES_PHRASES.map((p) => [p, true] as [string, boolean]), ...NO_PHRASES.map((p) => [p, false] as [string, boolean])]
  .sort((a, b) => b[0].length - a[0].length);

/** What may follow a want word that still wants the thing asked about ("أريد ذلك"). */
const WANTED_THAT = new Set(['ذلك', 'هذا', 'هذي', 'هذه', 'ده', 'دا', 'هاد', 'هادا', 'هيك', 'كذا', 'كده']);

const has = (words: string[], phrase: string) => ` ${words.join(' ')} `.includes(` ${phrase} `);

/** Whether the caller asks to hear the question or value again ("عيد", "ما سمعت", "قلت ايه"). */
export function isRepeatRequest(text: string): boolean {
  const words = tokenize(text);
  if (REPEAT_PHRASES.some((p) => has(words, p))) return true;
  // "نعم؟", "ايه؟", "عفوا؟", "شو؟": one word asked back.
  return words.length === 1 && /[؟?]\s*$/.test(text) && /^(?:نعم|ايه|عفوا|شو|ايش|وش|نعام|هاه|ها|هلا)$/.test(words[0]!);
}

/** Whether the caller says they don't know or aren't sure. */
export function isUnsure(text: string): boolean {
  const words = tokenize(text);
  return UNSURE_PHRASES.some((p) => has(words, normalizeWord(p)));
}

/** One stretch of words (no correction inside) → its answer. */
function answer(words: string[]): YesNo | undefined {
  let strongYes = false;
  let strongNo = false;
  let weakYes = false;
  let rest = ` ${words.join(' ')} `;
  for (const [p, yes] of PHRASES) {
    if (!rest.includes(` ${p} `)) continue;
    rest = rest.split(` ${p} `).join(' ');
    if (yes) strongYes = true;
    else strongNo = true;
  }
  const left = rest.split(' ').filter(Boolean);
  for (let i = 0; i < left.length; i++) {
    const w = left[i]!;
    const nextWord = left[i + 1];
    if (NEGATORS.has(w) && nextWord && (YES_WORDS.has(nextWord) || WEAK_YES_WORDS.has(nextWord))) {
      strongNo = true;
      i++;
    } else if (WEAK_YES_WORDS.has(w) || (WANT_WORDS.has(w) && left.slice(i + 1).every((o) => WANTED_THAT.has(o)))) weakYes = true;
    else if (YES_WORDS.has(w)) strongYes = true;
    else if (NO_WORDS.has(w)) strongNo = true;
  }
  if (strongYes && strongNo) return undefined;
  if (strongYes) return 'yes';
  if (strongNo) return 'no';
  return weakYes ? 'yes' : undefined;
}

/** 'yes', 'no', or undefined when the caller asks to repeat, doesn't know or is unclear. */
export function parseYesNo(text: string): YesNo | undefined {
  if (isRepeatRequest(text) || isUnsure(text)) return undefined;
  const words = tokenize(text);
  if (words.length <= 2 && /[؟?]\s*$/.test(text)) return undefined;
  const lastCorrection = words.findLastIndex((w) => CORRECTION_WORDS.has(w));
  if (lastCorrection >= 0) {
    const after = answer(words.slice(lastCorrection + 1));
    if (after) return after;
  }
  return answer(words.filter((w) => !CORRECTION_WORDS.has(w)));
}
