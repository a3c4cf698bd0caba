/**
 * `parseAmount` / `parseMoney`: an amount of money as a caller says it ("ألف وخمسمية ريال" →
 * 1500, "ربع مليون" → 250000, "مليون ونص", "عشرة ريال وخمسين هللة" → 10.5, "١٬٥٠٠", "1,500.75").
 * The first number said is the amount; a currency word after it names the currency; a second
 * number followed by a subunit word (هللة، قرش، فلس، سنت) adds the subunits. A correction
 * ("لا"، "قصدي"…) followed by an amount replaces the amount said before it.
 */
import { restatedValue } from './correction.ts';
import { CURRENCIES, NATIONALITIES } from './currencies.ts';
import { readSpoken, type SpokenItem } from './spoken-numbers.ts';

/** Currency words as said (normalized: ة as ه), to the key in `CURRENCIES`; duals count 2. */
const CURRENCY_WORDS: Record<string, { key: string; dual?: boolean }> = {
  'ريال': { key: 'ريال' }, 'ريالات': { key: 'ريال' }, 'ريالا': { key: 'ريال' }, 'ريالين': { key: 'ريال', dual: true }, 'ريالان': { key: 'ريال', dual: true },
  'درهم': { key: 'درهم' }, 'دراهم': { key: 'درهم' }, 'درهما': { key: 'درهم' }, 'درهمين': { key: 'درهم', dual: true },
  'جنيه': { key: 'جنيه' }, 'جنيهات': { key: 'جنيه' }, 'جنيها': { key: 'جنيه' }, 'جنيهين': { key: 'جنيه', dual: true }, 'جني': { key: 'جنيه' },
  'دولار': { key: 'دولار' }, 'دولارات': { key: 'دولار' }, 'دولارا': { key: 'دولار' }, 'دولارين': { key: 'دولار', dual: true },
  'دينار': { key: 'دينار' }, 'دنانير': { key: 'دينار' }, 'دينارا': { key: 'دينار' }, 'دينارين': { key: 'دينار', dual: true },
  'ليره': { key: 'ليرة' }, 'ليرات': { key: 'ليرة' }, 'ليرتين': { key: 'ليرة', dual: true },
  // Maghrebi أورو (the euro as Morocco, Algeria and Tunisia write it).
  'يورو': { key: 'EUR' }, 'اورو': { key: 'EUR' }, 'sar': { key: 'SAR' }, 'aed': { key: 'AED' }, 'egp': { key: 'EGP' }, 'usd': { key: 'USD' }, 'kwd': { key: 'KWD' },
  'mad': { key: 'MAD' }, 'tnd': { key: 'TND' }, 'dzd': { key: 'DZD' },
};

/**
 * Subunit words (هللة، قرش، فلس، سنت، بيسة، سنتيم، مليم), singular, plural and dual, with the currency
 * an amount said in them alone is of: the riyal's هللة, the pound's قرش, the dinar's فلس (a
 * thousandth in Kuwait, Bahrain, Jordan and Iraq), the dollar's سنت, the Omani riyal's بيسة, the
 * Moroccan dirham's سنتيم and the Tunisian dinar's مليم.
 */
const SUBUNIT_OF: Record<string, string> = {
  ...Object.fromEntries(['هلله', 'هللات', 'هللتين'].map((w) => [w, 'ريال'])),
  ...Object.fromEntries(['قرش', 'قروش', 'قرشين', 'غرش'].map((w) => [w, 'جنيه'])),
  ...Object.fromEntries(['فلس', 'فلوس', 'فلسين'].map((w) => [w, 'دينار'])),
  ...Object.fromEntries(['سنت', 'سنتات', 'سنتين'].map((w) => [w, 'دولار'])),
  ...Object.fromEntries(['بيسه', 'بيسات'].map((w) => [w, 'OMR'])),
  ...Object.fromEntries(['سنتيم', 'سنتيمات'].map((w) => [w, 'درهم'])),
  ...Object.fromEntries(['مليم', 'مليمات'].map((w) => [w, 'TND'])),
};
const SUBUNIT_WORDS = new Set(Object.keys(SUBUNIT_OF));

/** An amount and, when the caller named one, its currency (a key of `CURRENCIES`: 'SAR', 'ريال'…). */
export interface SpokenMoney {
  amount: number;
  currency?: string;
}

/** "ريال سعودي" → SAR: a nationality after a bare currency name. */
function withNationality(key: string, next: SpokenItem | undefined): string {
  if (next?.kind !== 'word') return key;
  const byNation = NATIONALITIES[key];
  if (!byNation) return key;
  // A feminine currency's nationality agrees (ليرة لبنانية): its ending (ة, here ه) is dropped.
  const said = key === 'ليرة' ? next.word.replace(/ه$/, '') : next.word;
  for (const [nation, code] of Object.entries(byNation)) {
    if (said === nation.replace(/[إأآ]/g, 'ا')) return code;
  }
  return key;
}

/**
 * The amount said in `text` with its currency, or undefined when no amount is said. After a
 * correction ("ألف ريال، لا قصدي ألفين") the amount said again counts, in the currency said
 * before unless it names its own.
 */
export function parseMoney(text: string): SpokenMoney | undefined {
  const restated = restatedValue(text, moneyOf);
  if (!restated) return moneyOf(text);
  const currency = restated.value.currency ?? moneyOf(restated.before)?.currency;
  return { amount: restated.value.amount, ...(currency ? { currency } : {}) };
}

function moneyOf(text: string): SpokenMoney | undefined {
  const items = readSpoken(text);
  let amount: number | undefined;
  let currency: string | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.kind === 'number') {
      const next = items[i + 1];
      if (amount === undefined) {
        // "خمسة وعشرين قرش": an amount in subunits alone is a part of its currency (0.25), not 25 of it.
        const of = next?.kind === 'word' ? SUBUNIT_OF[next.word] : undefined;
        if (of && !currency) {
          currency = of;
          amount = item.value / (CURRENCIES[of]?.base ?? 100);
          break;
        }
        amount = item.value;
        continue;
      }
      if (item.fraction && item.value < 1) {
        amount += item.value;
        break;
      }
      // "عشرة ريال وخمسين هللة": subunits after the currency.
      if (next?.kind === 'word' && SUBUNIT_WORDS.has(next.word)) {
        const base = CURRENCIES[currency ?? 'ريال']?.base ?? 100;
        amount += item.value / base;
      }
      break;
    }
    if (item.kind === 'word' && item.word in CURRENCY_WORDS) {
      const { key, dual } = CURRENCY_WORDS[item.word]!;
      currency = withNationality(key, items[i + 1]);
      if (amount === undefined && dual) amount = 2;
      // "جنيه ونص", "ريال وخمسين هللة": a currency before any number is one of it, when what
      // follows is a fraction or subunits (otherwise the number after it is the amount: "SAR 3000").
      const after = items.slice(i + 1).find((x) => x.kind === 'number');
      const afterNext = after ? items[items.indexOf(after) + 1] : undefined;
      if (amount === undefined && !dual && after?.kind === 'number' && (after.value < 1 || (afterNext?.kind === 'word' && SUBUNIT_WORDS.has(afterNext.word)))) amount = 1;
    }
  }
  if (amount === undefined || !Number.isFinite(amount)) return undefined;
  return { amount: Math.round(amount * 1000) / 1000, ...(currency ? { currency } : {}) };
}

/** The amount said in `text` ("ألف وخمسمية ريال" → 1500), or undefined. */
export function parseAmount(text: string): number | undefined {
  return parseMoney(text)?.amount;
}
