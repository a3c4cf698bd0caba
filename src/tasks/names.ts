/**
 * Names as callers give them: said ("اسمي محمد العتيبي") or spelled by the letters' names
 * ("ميم حاء ميم دال"), and spelled back the same way.
 */
import { restatedValue } from '../text/correction.ts';
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
 * Letters named in two words (normalized): the short forms callers use ("ألف همزة" is أ where a
 * word starts), the madda's, and ة and ى.
 */
const LETTER_PHRASES: [string[], string][] = [
  [['الف', 'همزه'], 'أ'], [['الف', 'مده'], 'آ'], [['الف', 'ممدوده'], 'آ'], [['الف', 'مقصوره'], 'ى'], [['تا', 'مربوطه'], 'ة'],
];

/**
 * A hamza or madda on its seat, named in three words in any of the orders callers use: the seat,
 * where, the sign ("ألف فوقها همزة" as it is spelled back, "ألف تحت همزة"), the seat, the sign,
 * where ("ألف همزة تحت"), or the sign, where, the seat, as spelling is taught ("همزة على الألف"،
 * "همزة تحت الألف"، "همزة على الواو"، "همزة على نبرة"، "همزة على السطر").
 */
const SEATS: Record<string, 'ا' | 'و' | 'ي' | 'ء'> = { 'الف': 'ا', 'الالف': 'ا', 'واو': 'و', 'الواو': 'و', 'يا': 'ي', 'اليا': 'ي', 'نبره': 'ي', 'النبره': 'ي', 'السطر': 'ء' };
const WHERE: Record<string, 'above' | 'below'> = { 'فوق': 'above', 'فوقها': 'above', 'فوقه': 'above', 'علي': 'above', 'عليها': 'above', 'عليه': 'above', 'تحت': 'below', 'تحتها': 'below', 'تحته': 'below' };
const SIGNS: Record<string, 'hamza' | 'madda'> = { 'همزه': 'hamza', 'الهمزه': 'hamza', 'مده': 'madda', 'المده': 'madda' };

/**
 * The letter the first three words name (normalized), or undefined: a seat the sign cannot take
 * is none. The fourth tells "ياء همزة على نبرة" (ي, then ئ as taught) from "ألف همزة تحت" (إ).
 */
function seated(words: string[]): string | undefined {
  const [a = '', b = '', c = '', d = ''] = words;
  const [seat, where, sign] =
    a in SEATS && b in WHERE && c in SIGNS ? [a, b, c]
    : a in SEATS && b in SIGNS && c in WHERE && !(d in SEATS) ? [a, c, b]
    : a in SIGNS && b in WHERE && c in SEATS ? [c, b, a]
    : [];
  if (!seat || !where || !sign) return undefined;
  const on = SEATS[seat]!;
  if (SIGNS[sign] === 'madda') return on === 'ا' && WHERE[where] === 'above' ? 'آ' : undefined;
  if (WHERE[where] === 'below') return on === 'ا' ? 'إ' : undefined;
  return { 'ا': 'أ', 'و': 'ؤ', 'ي': 'ئ', 'ء': 'ء' }[on];
}

/**
 * Words around a name that are not part of it: "my name is" (Moroccan سميتي: Harrell 1966), "you
 * are speaking with" (معك، معاك: how a caller gives their name on the phone), fillers and answers.
 */
const NOT_NAME = new Set(['اسمي', 'اسمه', 'اسمها', 'الاسم', 'سميتي', 'انا', 'معك', 'معاك', 'هو', 'هي', 'يعني', 'اه', 'لا', 'نعم', 'ايوه', 'اي', 'بس', 'مو', 'مش', 'اكتب', 'اكتبه', 'اكتبها', 'يتهجي', 'حرف', 'مسافه']);

/**
 * A hesitation ("ام", "امم") and not the kunya أم ("أم محمد", as a mother is called by her eldest
 * son's name): written with its hamza, أم is part of the name, as أبو is.
 */
const hesitation = (raw: string, w: string) => /^ام+$/.test(w) && !/^أ/.test(raw);

/**
 * The name in `text`: spelled letters joined into words ("مسافة" or any other word ends one),
 * other words kept as said; "تاء مربوطة", "ألف مقصورة" and the hamza on its seat ("ألف فوقها همزة",
 * "همزة تحت الألف", "ألف همزة") are one letter each (ة، ى، أ، إ). A name said again after a
 * correction ("محمد، لا قصدي أحمد") is the one meant. Undefined when nothing but yes/no or filler
 * words was said.
 */
export function readName(text: string): string | undefined {
  return restatedValue(text, nameIn)?.value ?? nameIn(text);
}

function nameIn(text: string): string | undefined {
  const raw = text.replace(/[\u064B-\u0652\u0640]/g, '').split(/[\s،,.؟?!…]+/).filter(Boolean);
  const said: string[] = [];
  const spelled: string[] = [];
  let word = '';
  const endWord = () => {
    if (word.length >= 2) spelled.push(word);
    word = '';
  };
  for (let i = 0; i < raw.length; i++) {
    const w = normalizeWord(raw[i]!);
    const onSeat = seated(raw.slice(i, i + 4).map(normalizeWord));
    if (onSeat) {
      word += onSeat;
      i += 2;
      continue;
    }
    // "ألف همزة" is أ where a word starts, and the two letters after one ("أسماء": … ألف، همزة).
    const phrase = LETTER_PHRASES.find(([words, letter]) => words.every((p, k) => normalizeWord(raw[i + k] ?? '') === p) && !(letter === 'أ' && word !== ''));
    if (phrase) {
      word += phrase[1];
      i += phrase[0].length - 1;
      continue;
    }
    if (w in LETTER_WORDS) { word += LETTER_WORDS[w]; continue; }
    endWord();
    if (!NOT_NAME.has(w) && !hesitation(raw[i]!, w)) said.push(raw[i]!);
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
