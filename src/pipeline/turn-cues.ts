/**
 * The words that tell whether an Arabic caller has finished speaking, per dialect. Written from
 * reference grammars, not from transcripts this code produced:
 *
 * - MSA: K. Ryding, *A Reference Grammar of Modern Standard Arabic* (2005): conjunctions
 *   (ch. 18), relative pronouns (ch. 19), interrogatives (ch. 20);
 * - Gulf: C. Holes, *Colloquial Arabic of the Gulf* (2010); H. Qafisheh, *A Short Reference
 *   Grammar of Gulf Arabic* (1977);
 * - Levantine: M. Cowell, *A Reference Grammar of Syrian Arabic* (1964);
 * - Egyptian: E. Badawi & M. Hinds, *A Dictionary of Egyptian Arabic* (1986); M. Woidich,
 *   *Das Kairenisch-Arabische* (2006);
 * - Maghrebi (Moroccan): R. Harrell, *A Short Reference Grammar of Moroccan Arabic* (1962);
 * - discourse markers and fillers across dialects: C. Holes, *Modern Arabic: Structures,
 *   Functions and Varieties* (2004), ch. 8; "I mean" before a self-correction (قصدي، أقصد) as the
 *   repair marker of E. Schegloff, G. Jefferson & H. Sacks, "The preference for self-correction
 *   in the organization of repair in conversation", *Language* 53 (1977): the corrected word
 *   follows it.
 *
 * Words are written as a caller's transcript spells them; lookups normalize both sides
 * (hamza seats, taa marbuta, alif maqsura, tashkeel), so one spelling of each is enough.
 */

/** The dialects whose cues the turn policy knows. */
export type Dialect = 'msa' | 'gulf' | 'levantine' | 'egyptian' | 'maghrebi';

/** Every dialect, in the order the tables list them. */
export const DIALECTS: readonly Dialect[] = ['msa', 'gulf', 'levantine', 'egyptian', 'maghrebi'];

/** One dialect's cue words. */
export interface DialectCues {
  /** A turn ending on one of these is not over: conjunctions, subordinators, relative pronouns, prepositions. */
  connectors: string[];
  /** Hesitations and discourse fillers: a caller who trails off on one is still thinking. */
  fillers: string[];
  /**
   * Words that open a sentence and need what follows: "I want", "can I", "my number is", "wait a
   * moment". A turn ending on one is not over.
   */
  awaiting: string[];
  /** Question words that open a question (MSA and every dialect). */
  questions: string[];
  /** Question words a dialect also puts last ("الفرع فين", "رصيدي قديش"): a question ending on one is whole. */
  finalQuestions: string[];
  /** Closings: a turn ending on one is over ("شكرًا مع السلامة"). */
  closings: string[];
}

/** Cues of Modern Standard Arabic (Ryding 2005). */
const MSA: DialectCues = {
  connectors: [
    'و', 'ف', 'ثم', 'أو', 'أم', 'لكن', 'لكنّ', 'ولكن', 'بل', 'لأن', 'لأنّ', 'لأنه', 'إذا', 'إن', 'أن', 'لو', 'كي', 'لكي', 'حتى', 'عندما',
    'بينما', 'حيث', 'كما', 'الذي', 'التي', 'الذين', 'اللذان', 'اللتان', 'اللواتي', 'مع', 'في', 'من', 'إلى', 'على', 'عن', 'عند', 'قبل',
    'لدى', 'بسبب', 'مثل', 'بين', 'حول', 'بخصوص', 'بشأن',
  ],
  fillers: ['يعني', 'حسنًا', 'أقصد', 'أعني'],
  // "I want to know / to ask" needs what: "أريد أن أعرف" alone has not said it.
  awaiting: ['أريد', 'أود', 'أرغب', 'أستطيع', 'يمكنني', 'يمكن', 'هل', 'رقمي', 'اسمي', 'هو', 'هي', 'لحظة', 'لحظة من فضلك', 'لحظة لو سمحت', 'انتظر', 'دقيقة', 'دقيقة من فضلك',
    'أريد أن أعرف', 'أود أن أعرف', 'أريد أن أسأل', 'أود أن أسأل', 'أريد معرفة'],
  questions: ['هل', 'ماذا', 'ما هو', 'ما هي', 'من هو', 'من هي', 'متى', 'أين', 'كيف', 'لماذا', 'كم', 'بكم'],
  finalQuestions: [],
  // A greeting alone waits for an answer as a closing does.
  closings: ['شكرًا', 'شكرا جزيلا', 'إن شاء الله', 'مع السلامة', 'في أمان الله', 'جزاك الله خيرًا', 'بارك الله فيك', 'وداعًا', 'هذا كل شيء', 'السلام عليكم'],
};

/** Cues of Gulf Arabic (Holes 2010, Qafisheh 1977). */
const GULF: DialectCues = {
  connectors: ['بس', 'لأن', 'لانه', 'عشان', 'علشان', 'إذا', 'لو', 'اللي', 'لين', 'عقب', 'حق', 'وياه', 'ويا', 'لما', 'زي'],
  fillers: ['يعني', 'طيب', 'إيه', 'وش اسمه', 'ايش اسمه', 'شسمه', 'قصدي'],
  awaiting: ['أبي', 'أبغى', 'ابغي', 'ودي', 'أقدر', 'تقدر', 'ممكن', 'حاب', 'لازم', 'رقمي هو', 'لحظة', 'ثانية', 'ثانية وحدة', 'اصبر', 'خلني', 'خليني أشوف',
    'أبي أعرف', 'أبغى أعرف', 'ودي أعرف', 'أبي أسأل', 'أبغى أسأل'],
  // چم، بچم: "how much" with the Kuwaiti and Bahraini č (Holes 2010), as their transcripts write it.
  questions: ['وش', 'ويش', 'إيش', 'شنو', 'شلون', 'وين', 'متى', 'ميتى', 'ليش', 'كم', 'بكم', 'چم', 'بچم', 'منو', 'مين', 'أي', 'هل'],
  finalQuestions: ['وين', 'متى', 'ميتى', 'كم', 'بكم', 'چم', 'بچم', 'ليش', 'وش', 'شلون', 'منو', 'إيش', 'شنو'],
  closings: ['مشكور', 'يعطيك العافية', 'الله يعطيك العافية', 'ما قصرت', 'تسلم', 'الله يسلمك', 'فمان الله', 'في أمان الله', 'بس كذا', 'خلاص كذا', 'هذا بس', 'مع السلامة'],
};

/** Cues of Levantine Arabic (Cowell 1964). */
const LEVANTINE: DialectCues = {
  connectors: ['بس', 'لأنو', 'لانه', 'مشان', 'منشان', 'عشان', 'إذا', 'لو', 'اللي', 'يللي', 'لما', 'بعدين', 'وبعدين', 'متل', 'ع', 'لـ', 'إنو', 'انه', 'حتى'],
  fillers: ['يعني', 'طيب', 'إيه', 'آه', 'شو اسمو', 'شو اسمه', 'قصدي'],
  awaiting: ['بدي', 'حابب', 'فيني', 'بقدر', 'ممكن', 'لازم', 'رقمي هو', 'لحظة', 'استنى', 'ثانية', 'خليني شوف', 'بدي أعرف', 'بدي إسأل', 'بدي اسألك'],
  questions: ['شو', 'ليش', 'وين', 'إيمتى', 'امتى', 'أيمتى', 'كيف', 'قديش', 'أديش', 'مين', 'أي', 'أيّا', 'هل'],
  finalQuestions: ['شو', 'ليش', 'وين', 'إيمتى', 'امتى', 'قديش', 'أديش', 'كيف', 'مين'],
  closings: ['يسلمو', 'يسلمو إيديك', 'ميرسي', 'مرسي', 'تسلم', 'الله معك', 'مع السلامة', 'بس هيك', 'وبس', 'يعطيك العافية', 'باي'],
};

/** Cues of Egyptian Arabic (Badawi & Hinds 1986, Woidich 2006). */
const EGYPTIAN: DialectCues = {
  connectors: ['بس', 'عشان', 'علشان', 'لأن', 'لإن', 'لو', 'إن', 'اللي', 'لما', 'لحد', 'وبعدين', 'بعدين', 'زي', 'عند', 'ف'],
  fillers: ['يعني', 'أصل', 'طب', 'طيب', 'آه', 'اسمه إيه', 'اسمها إيه', 'بص', 'قصدي'],
  awaiting: ['عايز', 'عاوز', 'عايزة', 'عاوزة', 'حابب', 'أقدر', 'ممكن', 'لازم', 'رقمي هو', 'ثانية', 'ثانية واحدة', 'استنى', 'لحظة', 'خليني أشوف',
    'عايز أعرف', 'عاوز أعرف', 'عايزة أعرف', 'عاوزة أعرف', 'عايز أسأل', 'عايزة أسأل'],
  questions: ['إيه', 'ليه', 'فين', 'إمتى', 'امتى', 'إزاي', 'ازاي', 'كام', 'بكام', 'مين', 'أنهي'],
  finalQuestions: ['إيه', 'ليه', 'فين', 'إمتى', 'امتى', 'إزاي', 'ازاي', 'كام', 'بكام', 'مين'],
  closings: ['متشكر', 'متشكرة', 'شكرًا', 'ميرسي', 'مرسي', 'مع السلامة', 'سلام', 'بس كده', 'خلاص كده', 'الله يخليك', 'ربنا يخليك'],
};

/** Cues of Moroccan (Maghrebi) Arabic (Harrell 1962). */
const MAGHREBI: DialectCues = {
  connectors: ['حيت', 'حيث', 'باش', 'إلا', 'إيلا', 'ملي', 'اللي', 'ولا', 'ولكن', 'حتى', 'ديال', 'مع', 'ف', 'على'],
  fillers: ['يعني', 'زعما', 'ياك', 'إيه', 'آه'],
  awaiting: ['بغيت', 'نقدر', 'ممكن', 'خاصني', 'خصني', 'رقمي هو', 'تسنى', 'واحد الدقيقة', 'لحظة', 'بغيت نعرف', 'بغيت نسول', 'بغيت نسولك'],
  questions: ['شنو', 'آش', 'علاش', 'فين', 'إمتى', 'فوقاش', 'شحال', 'بشحال', 'كيفاش', 'شكون', 'واش', 'أشمن'],
  finalQuestions: ['فين', 'شحال', 'بشحال', 'إمتى', 'فوقاش', 'علاش', 'شكون', 'كيفاش'],
  closings: ['شكرًا بزاف', 'مرسي', 'بسلامة', 'الله يحفظك', 'الله يعطيك الصحة', 'بارك الله فيك', 'صافي', 'صافي شكرا', 'مع السلامة', 'شكرا'],
};

/** The cue tables, per dialect: extend them with `turn.cues` (docs/arabic.md). */
export const TURN_CUES: Readonly<Record<Dialect, DialectCues>> = { msa: MSA, gulf: GULF, levantine: LEVANTINE, egyptian: EGYPTIAN, maghrebi: MAGHREBI };

/**
 * Hesitation sounds, however long a transcript draws them out ("اممم", "آآآ", "ممم", "هممم",
 * "إييي"), after normalization (آ/إ/أ → ا).
 */
export const HESITATION = /^(?:ا*م{2,}|ه+م{2,}|ا{2,}|ا+ه{2,}|اي{2,}|ي{3,}|ا?ه{3,}|ehm+|um+|uh+|hmm+)$/u;

/**
 * Words heard after a verb of asking or knowing ("أبغى أعرف كم…", "بدي أعرف قديش…"): the
 * question word at the end then opens a question the caller has not asked yet.
 */
export const ASKING_VERBS = ['أعرف', 'اعرف', 'نعرف', 'أسأل', 'اسأل', 'نسأل', 'تقولي', 'تقول لي', 'تقلي', 'قولي', 'تخبرني', 'أستفسر'];

/**
 * Egyptian words after which "إيه" asks "what" ("يعني إيه؟", "عايز إيه"), where in the Gulf and
 * the Levant a trailing "إيه" is a yes or a filler.
 */
export const EGYPTIAN_WHAT_FRAMES = ['يعني', 'عايز', 'عاوز', 'بتقول', 'قلت', 'فيه', 'حصل', 'المشكلة', 'بتعمل', 'ده', 'دي'];

/**
 * Words that are a whole answer on their own as often as a filler ("آه" yes in Cairo and
 * Damascus, "إيه" yes in the Gulf and "what" in Egypt, "طيب" okay): alone they decide nothing.
 */
export const AMBIGUOUS_ALONE = ['إيه', 'آه', 'اه', 'طيب', 'حسنًا'];

/**
 * Words that open a condition or a time clause ("إذا ما وصلتني الرسالة…", Moroccan "إيلا…"): a
 * turn that starts with one and asks nothing has not said its main clause yet. "لو سمحت"
 * (please) is not one.
 */
export const CONDITIONALS = ['إذا', 'لو', 'إن', 'لما', 'عندما', 'إيلا', 'ملي'];

/** Words after "لو"/"إذا"/"إن" that make a formula, not a condition ("لو سمحت", "إذا ممكن", "إن شاء الله"). */
export const POLITE_AFTER_IF = ['سمحت', 'سمحتي', 'سمحتوا', 'تكرمت', 'ممكن', 'تسمح', 'شاء'];

/** Negators: "ما أبي", "مش عايز", "ما بدي" refuse, they do not open a sentence. */
export const NEGATORS = ['ما', 'مش', 'مو', 'مب', 'لا', 'ماني', 'مانيش', 'موش', 'مافيش'];

/** Intensifiers a closing may end on ("ميرسي كتير", "شكرا بزاف", "متشكر أوي"). */
export const INTENSIFIERS = ['كتير', 'كثير', 'جزيلا', 'جزيلًا', 'أوي', 'قوي', 'بزاف', 'وايد', 'مرة', 'كثيرا'];

/** Politeness and greetings a caller opens with ("لو سمحت كم رصيدي"): skipped before a question word. */
export const POLITE_OPENERS = ['لو سمحت', 'لو سمحتي', 'من فضلك', 'إذا ممكن', 'لو تكرمت', 'بعد إذنك', 'الله يخليك', 'السلام عليكم', 'مرحبا', 'ألو', 'أهلا', 'معلش', 'عفوا'];
