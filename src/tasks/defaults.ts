import type { PartOfDay } from '../text/date-words.ts';

/**
 * Every line the Arabic tasks speak, in MSA, and their limits. Override any of them per task
 * (`digitsTask({ kind: 'phone', lines: { prompt: '…' } })`) or read them here. `{label}` and
 * `{value}` in a line are replaced by the value's name ("الرقم") and its reading.
 */
export const TASK_DEFAULTS = {
  /** Failed captures or rejected read-backs before the task ends with `max_attempts`; silences before `no_input`. */
  maxAttempts: 3,
  lines: {
    /** The first question, per task kind. */
    prompts: {
      phone: 'من فضلك، قل رقم جوالك، أو أدخله بلوحة المفاتيح ثم اضغط المربع.',
      national_id: 'من فضلك، قل رقم الهوية الوطنية أو الإقامة، أو أدخله ثم اضغط المربع.',
      iban: 'من فضلك، قل أرقام الآيبان بعد رمز الدولة، أو أدخلها ثم اضغط المربع.',
      /** `digitsTask({ kind: 'iban' })` for a country whose IBAN has letters after its own (a bank code: Qatar's DOHB): keys cannot carry them. */
      iban_letters: 'من فضلك، قل الآيبان بعد رمز الدولة، حروفه وأرقامه، حرفًا حرفًا.',
      card_last4: 'من فضلك، قل آخر أربعة أرقام من بطاقتك.',
      otp: 'من فضلك، قل رمز التحقق الذي وصلك في الرسالة.',
      custom: 'من فضلك، قل الرقم أو أدخله ثم اضغط المربع.',
      date: 'ما التاريخ الذي تريده؟',
      amount: 'كم المبلغ؟',
      name: 'ما الاسم؟ يمكنك تهجئته حرفًا حرفًا.',
    },
    /** What each value is called in the read-back. */
    labels: {
      phone: 'الرقم', national_id: 'رقم الهوية', iban: 'الآيبان', card_last4: 'آخر أربعة أرقام', otp: 'الرمز', custom: 'الرقم',
      date: 'الموعد', amount: 'المبلغ', name: 'الاسم',
    },
    /** The read-back and the question that follows it. */
    confirm: '{label} {value}، صحيح؟',
    /** Nothing the task could use was heard. */
    notUnderstood: 'عذرًا، لم أفهم.',
    /** A value was heard but fails its check (length, checksum, format). */
    invalid: 'عذرًا، {label} الذي سمعته غير صحيح.',
    /** A value was keyed but fails its check ("heard" would tell a caller who typed it that they were misheard). */
    invalidKeyed: 'عذرًا، {label} الذي أدخلته غير صحيح.',
    /** `digitsTask({ kind: 'iban' })`: keys came for an IBAN whose letters keys cannot carry; the prompt follows. */
    lettersNotKeyed: 'لا يمكن إدخال حروف الآيبان بلوحة المفاتيح.',
    /** After a "no" to the read-back. */
    tryAgain: 'حسنًا، لنحاول مرة أخرى.',
    /** Neither yes nor no heard after a read-back. */
    yesOrNo: 'من فضلك، أجب بنعم أو لا.',
    /** The caller said nothing. */
    noInput: 'لم أسمع شيئًا.',
    /** The task gives up (after `maxAttempts`). */
    giveUp: 'عذرًا، لم أتمكن من تسجيل ذلك.',
    /**
     * `dateTask({ requireTime })`: a date given without its hour; `{value}` is the part of the day
     * said ("بكرة العصر"), with its preposition ("من الصباح", "بعد الظهر"), and is left out for a
     * date said or keyed without one ("بكرة", DDMMYYYY: "في أي ساعة؟").
     */
    askHour: 'في أي ساعة {value}؟',
    /** `dateTask` only: 12 said with a part of the day it is not in ("اتناشر الصبح", "12 am"): noon or midnight? */
    askTwelve: 'الساعة الثانية عشرة ظهرًا أم منتصف الليل؟',
    /**
     * The parts of the day as `askHour` names them: a noun is asked "من" it (في أي ساعة من
     * الصباح), a name that is an adverb of time already (بعد الظهر) as it is.
     */
    partsOfDay: { dawn: 'الفجر', morning: 'الصباح', noon: 'الظهيرة', afternoon: 'بعد الظهر', sunset: 'بعد المغرب', evening: 'المساء', night: 'الليل' },
  },
} as const;

/** The lines a task speaks (each overridable). */
export interface TaskLines {
  prompt: string;
  label: string;
  confirm: string;
  notUnderstood: string;
  invalid: string;
  invalidKeyed: string;
  /** Used by `digitsTask({ kind: 'iban' })` only, for a country whose IBAN has letters. @default TASK_DEFAULTS.lines.lettersNotKeyed */
  lettersNotKeyed?: string;
  tryAgain: string;
  yesOrNo: string;
  noInput: string;
  giveUp: string;
  /** Used by `dateTask` only. */
  askHour: string;
  /** `dateTask` only: noon or midnight, for 12 said with a part of the day it is not in. @default TASK_DEFAULTS.lines.askTwelve */
  askTwelve?: string;
  /** `dateTask` only: the parts of the day as `askHour` names them, any of them replaced. @default TASK_DEFAULTS.lines.partsOfDay */
  partsOfDay?: Partial<Record<PartOfDay, string>>;
}

/** What every task takes: the number of tries, the prompt and any line to replace. */
export interface TaskOptions {
  /** @default TASK_DEFAULTS.maxAttempts */
  maxAttempts?: number;
  /** The first question (shortcut for `lines.prompt`). */
  prompt?: string;
  lines?: Partial<TaskLines>;
}

/** The task's lines: the defaults for `kind`, then the caller's. */
export function taskLines(kind: keyof typeof TASK_DEFAULTS.lines.labels, options: TaskOptions): TaskLines {
  const d = TASK_DEFAULTS.lines;
  return {
    prompt: options.prompt ?? d.prompts[kind], label: d.labels[kind], confirm: d.confirm, notUnderstood: d.notUnderstood, invalid: d.invalid, invalidKeyed: d.invalidKeyed,
    lettersNotKeyed: d.lettersNotKeyed, tryAgain: d.tryAgain, yesOrNo: d.yesOrNo, noInput: d.noInput, giveUp: d.giveUp, askHour: d.askHour, askTwelve: d.askTwelve,
    ...options.lines,
  };
}

/**
 * A part of the day as the hour question names it: "في أي ساعة الصباح" joins two nouns where MSA
 * wants the part of a whole, "في أي ساعة من الصباح"; a name that begins with a preposition or an
 * adverb of time (بعد الظهر، قبل المغرب، من صباح الغد) already says it.
 */
export function partOfDayPhrase(name: string): string {
  return /^(?:من|بعد|قبل|عند|في|حوالي|نحو)\s/.test(name.trim()) ? name.trim() : `من ${name.trim()}`;
}

/** A line with `{label}` and `{value}` filled in. */
export function fill(line: string, label: string, value = ''): string {
  return line.replace(/\{label\}/g, label).replace(/\{value\}/g, value);
}
