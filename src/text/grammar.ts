/**
 * The case a number takes from the word before it. After a preposition or a noun it completes
 * (بنسبة، بقيمة، لمدة، خلال) it is genitive; after the verbs listed, whose object it is, it is
 * accusative; elsewhere (subject, predicate, after a pronoun-suffixed noun) nominative:
 * "تبقى يومان" but "قبل يومين", "بنسبة ثلاثين بالمئة", "يستغرق عشرين دقيقة".
 */
import { ACCUSATIVE_WORDS, VERBS, verbForms, type VerbEntry } from './case-lexicon.ts';
import { obliqueForm, type GrammaticalCase, type Noun } from './numbers.ts';

/** Prepositions and construct heads, without a ب/ل prefix (بنسبة is found as نسبة). */
export const GENITIVE_BEFORE = new Set([
  'في', 'من', 'إلى', 'الى', 'على', 'عن', 'مع', 'خلال', 'بعد', 'قبل', 'حتى', 'نحو', 'حوالي', 'حوالى', 'منذ', 'مذ', 'بين',
  'عند', 'لدى', 'قرابة', 'زهاء', 'فوق', 'تحت', 'دون', 'ضمن', 'عبر', 'لغاية', 'مقابل', 'بدل', 'حول', 'ب', 'بـ', 'ل', 'لـ', 'ك', 'كـ', 'سوى', 'غير', 'بضع', 'أكثر', 'أقل',
  'نسبة', 'قيمة', 'مبلغ', 'مدة', 'رسوم', 'غرامة', 'خصم', 'عام', 'سنة', 'معدل', 'سعر', 'تكلفة', 'مقدار', 'زيادة', 'حد',
  'مسافة', 'ارتفاع', 'وزن', 'عمر', 'بحدود', 'حدود', 'أجرة', 'فائدة', 'مجموع', 'إجمالي', 'رصيد', 'يوم', 'أصل', 'غضون', 'تاريخ', 'كل', 'أول', 'آخر',
  // Verbal nouns heading a construct ("تم تحويل مئتي ريال"): those of `VERBS` are added by `caseRules`.
  'إلغاء', 'استبدال',
]);

/** The words that govern a number's case: genitive heads and accusative heads. */
export interface CaseRules {
  genitive: Set<string>;
  accusative: Set<string>;
}

/** The case rules with the verbs of `VERBS` and `extra`: their forms govern the accusative, their masdars the genitive. */
export function caseRules(extra: VerbEntry[] = []): CaseRules {
  const verbs = [...VERBS, ...extra];
  return {
    genitive: new Set([...GENITIVE_BEFORE, ...verbs.flatMap((v) => (v.masdar ? [v.masdar] : []))]),
    accusative: new Set([...verbs.flatMap(verbForms), ...ACCUSATIVE_WORDS]),
  };
}

const DEFAULT_RULES = caseRules();

/** How a number is read from what precedes it; 'pausal' when the role is unclear (see `caseBefore`). */
export type CaseReading = GrammaticalCase | 'pausal';

const PRONOUN_OBJECTS = /\s(?:لك|لكِ|لكم|لكما|لنا|له|لها|عليك|عليكم|منك|منكم|إليك|إليكم)\s*$/u;
const PRONOUN_PHRASE = new Set(['لك', 'لكم', 'لكما', 'لنا', 'له', 'لها', 'عليك', 'عليكم', 'منك', 'منكم', 'إليك', 'إليكم']);
/** Standalone prepositions that open a phrase a verb's subject may be followed by ("تستغرق الرحلة من الرياض ساعتين"). */
const PREPOSITIONS = new Set(['في', 'من', 'إلى', 'الى', 'على', 'عن', 'مع', 'عبر', 'خلال', 'داخل', 'خارج', 'لدى', 'عند', 'بلا', 'بدون', 'دون']);
/** Words that open a new clause: the number after them belongs to it, not to a verb before them. */
const CLAUSE_OPENERS = new Set(['التي', 'الذي', 'اللذان', 'اللتان', 'الذين', 'اللاتي', 'اللواتي', 'لأن', 'لكن', 'حيث', 'إذا', 'اذا', 'إن', 'أن', 'لو', 'بينما', 'ثم', 'أو']);
/** Adverbs that may stand between a verb and its object ("يستغرق عادةً ساعتين"). */
const ADVERBS = new Set(['عادة', 'غالبا', 'تقريبا', 'حاليا', 'فقط', 'الآن', 'أيضا', 'اليوم', 'عادةً', 'حاليًا', 'تقريبًا', 'أيضًا', 'غالبًا']);
const bare = (w: string) => w.replace(/[\u064B-\u0652]/g, '');
/** A definite word (التفعيل، والباقة) or one with a possessive suffix (طلبك، باقتكم): a possible subject. */
const DEFINITE = /^(?:[وف]?(?:ال|لل)\p{L}{2,}|\p{L}{2,}(?:ك|كم|كما|نا|ه|ها|هم))$/u;
/** Words looked at before a number: a subject of a few words and a phrase stand between a verb and its object. */
const WINDOW = 7;

function isGenitiveHead(w: string, heads: Set<string>): boolean {
  const unprefixed = w.replace(/^[وف]?[بلك]?(?=\p{L}{3})/u, '');
  return heads.has(w) || heads.has(unprefixed) || heads.has(w.replace(/^[وف]/, ''));
}

/**
 * The case of a number from the words before it (`before` ends just before the number):
 * - after a preposition, a construct head or a verbal noun of `VERBS`: genitive ("بعد يومين",
 *   "تم حجز تذكرتين");
 * - after a verb of `VERBS`, directly or across its subject (التفعيل، معالجة الطلب، باقتك), a
 *   pronoun phrase (لك) or a prepositional phrase and an adverb: accusative ("يستغرق التفعيل ساعتين");
 * - when such a verb stands a few words before in the same clause but the words between are not
 *   read with certainty: 'pausal', the number in its citation form and no tanween on its noun,
 *   rather than a case that may be wrong;
 * - elsewhere (subject, predicate, after punctuation): nominative.
 */
export function caseBefore(before: string, rules: CaseRules = DEFAULT_RULES): CaseReading {
  const isAccusativeHead = (w: string) => rules.accusative.has(w) || rules.accusative.has(w.replace(/^[وف]/, ''));
  // "حجزنا لك تذكرتين": a pronoun after a preposition sits between the verb and its object.
  const clause = before.replace(PRONOUN_OBJECTS, '').split(/[.،,:؛!?؟()\n]/).pop()!;
  const words = clause.trim().split(/\s+/).filter(Boolean).slice(-WINDOW).map(bare);
  // The number right after punctuation starts a clause: nominative.
  if (!words.length || /[.،,:؛!?؟()]\s*$/.test(before)) return 'nominative';
  const last = words[words.length - 1]!;
  if (isGenitiveHead(last, rules.genitive)) return 'genitive';
  if (isAccusativeHead(last)) return 'accusative';
  // Walk back over what may stand between a verb and its object.
  let i = words.length - 1;
  let skipped = false;
  while (i >= 0) {
    const w = words[i]!;
    if (CLAUSE_OPENERS.has(w)) return 'nominative';
    if (isAccusativeHead(w) && skipped) return 'accusative';
    // A prepositional phrase ("من الرياض", "إلى جدة") is skipped whole.
    if (i > 0 && PREPOSITIONS.has(words[i - 1]!) && !isAccusativeHead(w)) {
      i -= 2;
      skipped = true;
      continue;
    }
    if (DEFINITE.test(w) || PRONOUN_PHRASE.has(w) || ADVERBS.has(w)) {
      i--;
      skipped = true;
      continue;
    }
    // The head of a construct subject ("معالجة الطلب"): an indefinite word before a definite one.
    if (skipped && i > 0 && DEFINITE.test(words[i + 1] ?? '') && isAccusativeHead(words[i - 1]!)) return 'accusative';
    break;
  }
  // A listed verb earlier in the clause, with words between that were not read: unsure.
  for (let j = i; j >= 0 && j >= words.length - 5; j--) {
    if ((/^و/.test(words[j]!) && !isAccusativeHead(words[j]!)) || CLAUSE_OPENERS.has(words[j]!)) break;
    if (isAccusativeHead(words[j]!)) return 'pausal';
  }
  return 'nominative';
}

/**
 * A counted noun heading a construct ("14 يوم عمل"): it loses its tanween (أربعة عشر يومَ عمل)
 * or its dual nun (يوما عمل، يومي عمل), and "one" follows the whole construct (يوم عمل واحد).
 * `counted` is what `countNoun` wrote for the number and the noun.
 */
export function inConstruct(counted: string, noun: Noun, complement: string): string {
  if (noun.invariant) return `${counted} ${complement}`;
  const construct = (w: string) => {
    const [, and = '', word = w] = w.match(/^(و?)(.*)$/u)!;
    if (word === noun.accusative && noun.accusative !== noun.singular) return `${and}${word.replace(/ًا$|ً$/u, '')}\u064E`;
    if (word === noun.dual || word === obliqueForm(noun.dual)) return `${and}${word.replace(/ن$/u, '')}`;
    return `${and}${word.replace(/\u064D$/u, 'ي')}`;
  };
  const words = counted.split(' ');
  const one = /^واحد(?:ة|ًا|ةً)?$/u.test(words[words.length - 1]!) ? words.pop()! : undefined;
  words[words.length - 1] = construct(words[words.length - 1]!);
  return [...words, complement, ...(one ? [one] : [])].join(' ');
}
