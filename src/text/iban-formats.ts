/**
 * IBAN formats of the Arab League's countries: the SWIFT IBAN Registry's (ISO 13616) length and
 * BBAN structure, in the registry's notation (`4!a` four letters, `3!n` three digits, `18!c`
 * eighteen letters or digits). Sources: docs/arabic-parsing.md#validators.
 */

/** One country's IBAN. */
export interface IbanFormat {
  /** Characters in all, the country's two letters and the two check digits included. */
  length: number;
  /** The BBAN (what follows the check digits) in the registry's notation. */
  bban: string;
  /**
   * 'registry': in the SWIFT IBAN Registry; 'experimental': not registered, but issued by the
   * country's banks in the form the experimental lists (iban.com, Nordea) give.
   */
  status: 'registry' | 'experimental';
}

/**
 * Every League member with an IBAN: the 18 in the SWIFT IBAN Registry and Algeria, the Comoros
 * and Morocco from the experimental lists. Syria has none.
 */
export const IBAN_FORMATS: Readonly<Record<string, IbanFormat>> = {
  AE: { length: 23, bban: '3!n16!n', status: 'registry' },
  BH: { length: 22, bban: '4!a14!c', status: 'registry' },
  DJ: { length: 27, bban: '5!n5!n11!n2!n', status: 'registry' },
  EG: { length: 29, bban: '4!n4!n17!n', status: 'registry' },
  IQ: { length: 23, bban: '4!a3!n12!n', status: 'registry' },
  JO: { length: 30, bban: '4!a4!n18!c', status: 'registry' },
  KW: { length: 30, bban: '4!a22!c', status: 'registry' },
  LB: { length: 28, bban: '4!n20!c', status: 'registry' },
  LY: { length: 25, bban: '3!n3!n15!n', status: 'registry' },
  MR: { length: 27, bban: '5!n5!n11!n2!n', status: 'registry' },
  OM: { length: 23, bban: '3!n16!c', status: 'registry' },
  PS: { length: 29, bban: '4!a21!c', status: 'registry' },
  QA: { length: 29, bban: '4!a21!c', status: 'registry' },
  SA: { length: 24, bban: '2!n18!c', status: 'registry' },
  SD: { length: 18, bban: '2!n12!n', status: 'registry' },
  SO: { length: 23, bban: '4!n3!n12!n', status: 'registry' },
  TN: { length: 24, bban: '2!n3!n13!n2!n', status: 'registry' },
  YE: { length: 30, bban: '4!a4!n18!c', status: 'registry' },
  DZ: { length: 26, bban: '22!n', status: 'experimental' },
  KM: { length: 27, bban: '23!n', status: 'experimental' },
  MA: { length: 28, bban: '24!n', status: 'experimental' },
};

const CLASS = { a: '[A-Z]', n: '\\d', c: '[A-Z0-9]' } as const;

/** The BBAN notation as a regular expression ("4!a3!n" → /^[A-Z]{4}\d{3}$/). */
export function bbanPattern(bban: string): RegExp {
  const parts = [...bban.matchAll(/(\d+)!([anc])/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== bban) throw new SyntaxError(`IBAN format: cannot read the BBAN "${bban}"`);
  return new RegExp(`^${parts.map(([, n, k]) => `${CLASS[k as keyof typeof CLASS]}{${n}}`).join('')}$`);
}

/** How many of the BBAN's characters are letters by its format (a bank code such as Iraq's NBIQ). */
export function bbanLetters(bban: string): number {
  return [...bban.matchAll(/(\d+)!a/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** The class of each character after the country's letters: the check digits, then the BBAN ("4!a3!n" → "nnaaaannn"). */
export function ibanClasses(bban: string): string {
  bbanPattern(bban); // a notation it cannot read fails here, with the registry's words
  return `nn${[...bban.matchAll(/(\d+)!([anc])/g)].map(([, n, k]) => k!.repeat(Number(n))).join('')}`;
}
