import { makeNoun } from './lexicon.ts';
import { countNoun, type GrammaticalCase, type Noun } from './numbers.ts';

/**
 * Currencies by ISO code, symbol and Arabic name, with their subunit and how many subunits make
 * one (the Kuwaiti, Bahraini and Omani currencies and the Jordanian dinar count in thousandths).
 */
export interface Currency {
  name: Noun;
  subunit?: Noun;
  /** Subunits in one unit. @default 100 */
  base?: number;
}

const n = (singular: string, plural: string, gender: 'm' | 'f' = 'm') => makeNoun({ singular, plural, gender });
const HALALA = n('هللة', 'هللات', 'f');
const FILS = n('فلس', 'فلوس');
const QIRSH = n('قرش', 'قروش');
const CENT = n('سنت', 'سنتات');
const BAISA = n('بيسة', 'بيسات', 'f');
const DIRHAM = n('درهم', 'دراهم');
const SANTIM = n('سنتيم', 'سنتيمات');

/** Currencies the normalizer reads, by ISO code, with their Arabic names and subunits. */
export const CURRENCIES: Record<string, Currency> = {
  SAR: { name: n('ريال سعودي', 'ريالات سعودية'), subunit: HALALA },
  AED: { name: n('درهم إماراتي', 'دراهم إماراتية'), subunit: FILS },
  EGP: { name: n('جنيه مصري', 'جنيهات مصرية'), subunit: QIRSH },
  USD: { name: n('دولار أمريكي', 'دولارات أمريكية'), subunit: CENT },
  EUR: { name: makeNoun({ singular: 'يورو', plural: 'يوروهات', gender: 'm', dual: 'يوروان' }), subunit: CENT },
  GBP: { name: n('جنيه إسترليني', 'جنيهات إسترلينية'), subunit: n('بنس', 'بنسات') },
  KWD: { name: n('دينار كويتي', 'دنانير كويتية'), subunit: FILS, base: 1000 },
  QAR: { name: n('ريال قطري', 'ريالات قطرية'), subunit: DIRHAM },
  BHD: { name: n('دينار بحريني', 'دنانير بحرينية'), subunit: FILS, base: 1000 },
  OMR: { name: n('ريال عماني', 'ريالات عمانية'), subunit: BAISA, base: 1000 },
  JOD: { name: n('دينار أردني', 'دنانير أردنية'), subunit: FILS, base: 1000 },
  LBP: { name: n('ليرة لبنانية', 'ليرات لبنانية', 'f'), subunit: QIRSH },
  SYP: { name: n('ليرة سورية', 'ليرات سورية', 'f'), subunit: QIRSH },
  TRY: { name: n('ليرة تركية', 'ليرات تركية', 'f'), subunit: QIRSH },
  // The Maghreb and Iraq (ISO 4217 minor units; the subunits' Arabic names as the central banks
  // write them: Moroccan سنتيم, Tunisian مليم, Libyan درهم, Iraqi فلس).
  MAD: { name: n('درهم مغربي', 'دراهم مغربية'), subunit: SANTIM },
  DZD: { name: n('دينار جزائري', 'دنانير جزائرية'), subunit: SANTIM },
  TND: { name: n('دينار تونسي', 'دنانير تونسية'), subunit: n('مليم', 'مليمات'), base: 1000 },
  LYD: { name: n('دينار ليبي', 'دنانير ليبية'), subunit: DIRHAM, base: 1000 },
  IQD: { name: n('دينار عراقي', 'دنانير عراقية'), subunit: FILS, base: 1000 },
  // The bare Arabic names: read as written, with no nationality the text did not give.
  'ريال': { name: n('ريال', 'ريالات'), subunit: HALALA },
  'درهم': { name: DIRHAM, subunit: FILS },
  'جنيه': { name: n('جنيه', 'جنيهات'), subunit: QIRSH },
  'دولار': { name: n('دولار', 'دولارات'), subunit: CENT },
  'دينار': { name: n('دينار', 'دنانير'), subunit: FILS, base: 1000 },
  'ليرة': { name: n('ليرة', 'ليرات', 'f'), subunit: QIRSH },
};

/** Symbols and abbreviations, written before or after the amount. */
export const CURRENCY_SYMBOLS: Record<string, string> = {
  'ر.س': 'SAR', '﷼': 'SAR', 'SR': 'SAR', 'د.إ': 'AED', 'Dh': 'AED', 'ج.م': 'EGP', 'LE': 'EGP', '$': 'USD', '€': 'EUR',
  '£': 'GBP', 'د.ك': 'KWD', 'د.ب': 'BHD', 'ر.ع': 'OMR', 'ر.ق': 'QAR', 'د.أ': 'JOD', 'د.ا': 'JOD',
  'د.م': 'MAD', 'د.ت': 'TND', 'د.ج': 'DZD', 'د.ل': 'LYD', 'ل.د': 'LYD', 'د.ع': 'IQD',
};

/** Arabic currency words as an LLM writes them after an amount, and the optional nationality. */
export const CURRENCY_WORDS: Record<string, string> = {
  'ريال': 'ريال', 'ريالا': 'ريال', 'ريالات': 'ريال', 'درهم': 'درهم', 'دراهم': 'درهم', 'درهما': 'درهم',
  'جنيه': 'جنيه', 'جنيها': 'جنيه', 'جنيهات': 'جنيه', 'دولار': 'دولار', 'دولارا': 'دولار', 'دولارات': 'دولار',
  'دينار': 'دينار', 'دينارا': 'دينار', 'دنانير': 'دينار', 'يورو': 'EUR', 'ليرة': 'ليرة', 'ليرات': 'ليرة',
};
export const NATIONALITIES: Record<string, Record<string, string>> = {
  'ريال': { 'سعودي': 'SAR', 'قطري': 'QAR', 'عماني': 'OMR' },
  'درهم': { 'إماراتي': 'AED', 'اماراتي': 'AED', 'مغربي': 'MAD' },
  'جنيه': { 'مصري': 'EGP', 'إسترليني': 'GBP', 'استرليني': 'GBP' },
  'دولار': { 'أمريكي': 'USD', 'امريكي': 'USD', 'أميركي': 'USD' },
  'دينار': { 'كويتي': 'KWD', 'بحريني': 'BHD', 'أردني': 'JOD', 'اردني': 'JOD', 'تونسي': 'TND', 'جزائري': 'DZD', 'ليبي': 'LYD', 'عراقي': 'IQD' },
  // Said in the feminine after ليرة (ليرة لبنانية); matched without its ending, as a masculine one.
  'ليرة': { 'لبناني': 'LBP', 'سوري': 'SYP', 'تركي': 'TRY' },
};

/** An amount in words: whole units, then the subunits (never "فاصلة"). */
export function readMoney(amount: string, code: string, c: GrammaticalCase = 'nominative'): string {
  const cur = CURRENCIES[code]!;
  const [intPart = '0', frac = ''] = amount.replace(/,/g, '').split('.');
  const whole = Number(intPart);
  const base = cur.base ?? 100;
  // "7.25" dinars is 250 fils; "7.250" too.
  const sub = frac ? Math.round(Number(`0.${frac}`) * base) : 0;
  const main = countNoun(whole, cur.name, c);
  if (!sub) return main;
  if (!cur.subunit) return main;
  const subWords = countNoun(sub, cur.subunit, c);
  return whole ? `${main} و${subWords}` : subWords;
}
