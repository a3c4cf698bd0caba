/**
 * Names as callers give them: said ("اسمي محمد العتيبي") or spelled by the letters' names
 * ("ميم حاء ميم دال"), and spelled back the same way.
 */
import { normalizeWord } from '../text/spoken-numbers.ts';
import { parseYesNo } from '../text/parse-yes-no.ts';

/** Arabic letter names (normalized) → the letter. */
export const LETTER_WORDS: Record<string, string> = {
  'الف': 'ا', 'همزه': 'ء', 'با': 'ب', 'باء': 'ب', 'تا': 'ت', 'ثا': 'ث', 'جيم': 'ج', 'حا': 'ح', 'خا': 'خ', 'دال': 'د', 'ذال': 'ذ', 'را': 'ر',
  'زاي': 'ز', 'زين': 'ز', 'سين': 'س', 'شين': 'ش', 'صاد': 'ص', 'ضاد': 'ض', 'طا': 'ط', 'ظا': 'ظ', 'عين': 'ع', 'غين': 'غ', 'فا': 'ف', 'قاف': 'ق',
  'كاف': 'ك', 'لام': 'ل', 'ميم': 'م', 'نون': 'ن', 'ها': 'ه', 'واو': 'و', 'يا': 'ي',
};
/** How each letter is named when a name is spelled back. */
const LETTER_NAMES: Record<string, string> = {
  'ا': 'ألف', 'أ': 'ألف فوقها همزة', 'إ': 'ألف تحتها همزة', 'آ': 'ألف فوقها مدة', 'ء': 'همزة', 'ب': 'باء', 'ت': 'تاء', 'ث': 'ثاء', 'ج': 'جيم', 'ح': 'حاء', 'خ': 'خاء',
  'د': 'دال', 'ذ': 'ذال', 'ر': 'راء', 'ز': 'زاي', 'س': 'سين', 'ش': 'شين', 'ص': 'صاد', 'ض': 'ضاد', 'ط': 'طاء', 'ظ': 'ظاء', 'ع': 'عين', 'غ': 'غين',
  'ف': 'فاء', 'ق': 'قاف', 'ك': 'كاف', 'ل': 'لام', 'م': 'ميم', 'ن': 'نون', 'ه': 'هاء', 'ة': 'تاء مربوطة', 'و': 'واو', 'ي': 'ياء', 'ى': 'ألف مقصورة', 'ئ': 'ياء فوقها همزة', 'ؤ': 'واو فوقها همزة',
};

/**
 * Letters named in more than one word (normalized), longest first: the hamza's and madda's seats
 * as they are spelled back ("ألف فوقها همزة", not "ألف همزة": two nouns side by side would be
 * "the alif of a hamza"), and the short forms callers use.
 */
const LETTER_PHRASES: [string[], string][] = [
  [['الف', 'فوقها', 'همزه'], 'أ'], [['الف', 'عليها', 'همزه'], 'أ'], [['الف', 'تحتها', 'همزه'], 'إ'],
  [['الف', 'فوقها', 'مده'], 'آ'], [['الف', 'عليها', 'مده'], 'آ'],
  [['يا', 'فوقها', 'همزه'], 'ئ'], [['يا', 'عليها', 'همزه'], 'ئ'], [['واو', 'فوقها', 'همزه'], 'ؤ'], [['واو', 'عليها', 'همزه'], 'ؤ'],
  [['الف', 'همزه'], 'أ'], [['الف', 'مده'], 'آ'], [['الف', 'ممدوده'], 'آ'], [['الف', 'مقصوره'], 'ى'], [['تا', 'مربوطه'], 'ة'],
];

/** Words around a name that are not part of it. */
const NOT_NAME = new Set(['اسمي', 'اسمه', 'اسمها', 'الاسم', 'انا', 'هو', 'هي', 'يعني', 'اه', 'ام', 'لا', 'نعم', 'ايوه', 'اي', 'بس', 'مو', 'مش', 'اكتب', 'اكتبه', 'اكتبها', 'يتهجي', 'حرف', 'مسافه']);

/**
 * The name in `text`: spelled letters joined into words ("مسافة" or any other word ends one),
 * other words kept as said; "تاء مربوطة", "ألف مقصورة" and the hamza's seats ("ألف فوقها همزة",
 * "ألف همزة") are one letter each (ة، ى، أ). Undefined
 * when nothing but yes/no or filler words was said.
 */
export function readName(text: string): string | undefined {
  const raw = text.replace(/[\u064B-\u0652\u0640]/g, '').split(/[\s،,.؟?!]+/).filter(Boolean);
  const said: string[] = [];
  const spelled: string[] = [];
  let word = '';
  const endWord = () => {
    if (word.length >= 2) spelled.push(word);
    word = '';
  };
  for (let i = 0; i < raw.length; i++) {
    const w = normalizeWord(raw[i]!);
    // "ألف همزة" is أ where a word starts, and the two letters after one ("أسماء": … ألف، همزة).
    const phrase = LETTER_PHRASES.find(([words, letter]) => words.every((p, k) => normalizeWord(raw[i + k] ?? '') === p) && !(words.length === 2 && letter === 'أ' && word !== ''));
    if (phrase) {
      word += phrase[1];
      i += phrase[0].length - 1;
      continue;
    }
    if (w in LETTER_WORDS) { word += LETTER_WORDS[w]; continue; }
    endWord();
    if (!NOT_NAME.has(w)) said.push(raw[i]!);
  }
  endWord();
  if (spelled.length) return spelled.join(' ');
  if (!said.length || (said.length <= 2 && parseYesNo(said.join(' ')) !== undefined)) return undefined;
  return said.join(' ');
}

/** A name spelled by its letters' names, a pause between letters: "ميم، حاء، ميم، دال". */
export function spellName(name: string): string {
  return name.split(/\s+/).map((w) => [...w].map((ch) => LETTER_NAMES[ch] ?? ch).join('، ')).join('، مسافة، ');
}
