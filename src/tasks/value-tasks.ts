/**
 * `dateTask`, `amountTask` and `nameTask`: a date (and time), an amount of money and a spelled
 * name, each read back and confirmed through the shared loop (confirm-loop.ts).
 */
import { parseMoney, type SpokenMoney } from '../text/parse-amount.ts';
import { parseDate, parseHour, type ParseDateOptions, type ParsedDate } from '../text/parse-date.ts';
import type { PartOfDay } from '../text/date-words.ts';
import { readBackAmount, readBackDate } from '../text/read-back.ts';
import { confirmLoop, type Heard } from './confirm-loop.ts';
import { TASK_DEFAULTS, fill, partOfDayPhrase, taskLines, type TaskOptions } from './defaults.ts';
import { readName, spellName } from './names.ts';
import type { CollectTask } from './types.ts';

/** Options of `dateTask`: the parser's, and the checks on the date. */
export interface DateTaskOptions extends TaskOptions, ParseDateOptions {
  /**
   * A date needs its hour: one given without it ("بكرة", "بكرة العصر", or keyed: DDMMYYYY holds
   * none) is asked it (`lines.askHour`, naming the part of the day said), and the answer
   * ("الساعة أربعة", or keys: 4#) is read on that day. An hour said with a part of the day it is
   * not in ("تسعة ونص العصر") is asked the same way, with or without this. @default false
   */
  requireTime?: boolean;
  /** Your own check (a day in the past refused, a working day…); false → "invalid". */
  validate?: (value: ParsedDate) => boolean;
}

/** A task collecting a date (Gregorian or Hijri, relative, with a time); keys: DDMMYYYY (with `requireTime`, then the hour). */
export function dateTask(options: DateTaskOptions = {}): CollectTask<ParsedDate> {
  const lines = taskLines('date', options);
  // The hour question names the part of the day said; without one ("بكرة", a keyed date) it asks the hour alone.
  const askHour = (part: PartOfDay | undefined): string =>
    part
      ? fill(lines.askHour, lines.label, partOfDayPhrase(lines.partsOfDay?.[part] ?? TASK_DEFAULTS.lines.partsOfDay[part]))
      : fill(lines.askHour.replace(/\s*\{value\}/g, '').trim(), lines.label);
  const check = (value: ParsedDate | undefined, heard: string): Heard<ParsedDate> => {
    if (!value) return { problem: 'nothing' };
    // An hour said with a part of the day it is not in ("تسعة ونص العصر"): the hour of that part is asked, not guessed.
    if (value.hourOutsidePart) {
      const { hourOutsidePart: _, ...partial } = value;
      // 12 with a part it is not in (the parser keeps no part then): noon or midnight is asked.
      if (!value.partOfDay) return askTwelve(partial, heard);
      return { problem: 'incomplete', partial, ask: askHour(value.partOfDay), heard };
    }
    // A day without its hour (said alone, with a part of the day, or keyed: DDMMYYYY holds none) is asked it.
    if (options.requireTime && (value.partOfDay || !value.time)) return { problem: 'incomplete', partial: value, ask: askHour(value.partOfDay), heard };
    if (options.validate && !options.validate(value)) return { problem: 'invalid', heard };
    return { value, heard };
  };
  /**
   * 12 said with a part of the day it is not in (الصبح، الفجر، العصر, 12 a.m.): "noon or
   * midnight?" is asked, the day kept; the partial carries `hourOutsidePart` so that the answer
   * may be the part alone ("الضهر"، "بالليل"), read with the 12 said before.
   */
  const askTwelve = (partial: ParsedDate, heard: string): Heard<ParsedDate> =>
    ({ problem: 'incomplete', partial: { ...partial, partOfDay: undefined, hourOutsidePart: '12' }, ask: fill(lines.askTwelve ?? TASK_DEFAULTS.lines.askTwelve, lines.label), heard });
  /**
   * An hour that is not in the part of the day given: 12 is noon or midnight, neither of them the
   * morning, the dawn or the afternoon, so which is asked; any other ("تسعة ونص" of the afternoon)
   * contradicts the part and is asked again naming it. Undefined when the words hold no hour at all.
   */
  const outsidePart = (hour: string, partial: ParsedDate, heard: string): Heard<ParsedDate> | undefined => {
    const free = { ...partial, partOfDay: undefined };
    // A number word alone ("اتناشر") is an hour here, the answer to the hour question.
    const loose = parseHour(hour, free, options) ?? parseHour(`الساعة ${hour}`, free, options);
    if (!loose) return undefined;
    if (loose.time?.startsWith('12:')) return askTwelve(partial, heard);
    return { problem: 'invalid', heard };
  };
  /** The answer to "noon or midnight?": an hour of its own, or the part alone, read with the 12 said before. */
  const twelveAnswer = (text: string, partial: ParsedDate): ParsedDate | undefined => {
    const { hourOutsidePart: _, ...on } = partial;
    // "نص الليل" is midnight, not half past an hour; "نص النهار" noon.
    const part = text.replace(/(?:نص|منتصف)\s+الليل/gu, 'بالليل').replace(/(?:نص|منتصف)\s+النهار/gu, 'الظهر');
    return parseHour(part, on, options) ?? parseHour(`الساعة 12:00 ${part}`, on, options);
  };
  return confirmLoop<ParsedDate>({
    name: 'date',
    lines,
    maxAttempts: options.maxAttempts,
    fromSpeech(text, partial) {
      if (!partial) return check(parseDate(text, options), text);
      if (partial.hourOutsidePart) return check(twelveAnswer(text, partial), text);
      const value = parseHour(text, partial, options);
      return (!value && partial.partOfDay && outsidePart(text, partial, text)) || check(value, text);
    },
    fromKeys(digits, partial) {
      // Keys answering the hour question are the hour (4, 16, 430, 1630), read on the day given, in
      // the part of the day given: one that is not in it (930 of the afternoon, 0 of the morning) is asked again.
      if (partial && /^\d{1,4}$/.test(digits)) {
        const [h, m] = digits.length <= 2 ? [digits, '00'] : [digits.slice(0, -2), digits.slice(-2)];
        const value = parseHour(`${Number(h)}:${m}`, partial, options);
        return value ? check(value, digits) : outsidePart(`${Number(h)}:${m}`, partial, digits) ?? { problem: 'invalid', heard: digits };
      }
      const m = /^(\d{2})(\d{2})(\d{4})$/.exec(digits);
      if (!m) return { problem: 'invalid', heard: digits };
      return check(parseDate(`${m[3]}-${m[2]}-${m[1]}`, options), digits);
    },
    readBack: readBackDate,
  });
}

/** Options of `amountTask`. */
export interface AmountTaskOptions extends TaskOptions {
  /** The currency read back when the caller names none (a key of `CURRENCIES`). @default 'ريال' */
  currency?: string;
  /** Smallest and largest amount accepted. */
  min?: number;
  max?: number;
}

/** A task collecting an amount of money; keys: whole units. The value keeps the currency said. */
export function amountTask(options: AmountTaskOptions = {}): CollectTask<Required<SpokenMoney>> {
  const currency = options.currency ?? 'ريال';
  readBackAmount(1, currency); // refuse an unknown currency now, not mid-call
  const check = (money: SpokenMoney | undefined, heard: string): Heard<Required<SpokenMoney>> => {
    if (!money) return { problem: 'nothing' };
    if ((options.min !== undefined && money.amount < options.min) || (options.max !== undefined && money.amount > options.max) || money.amount <= 0) return { problem: 'invalid', heard };
    return { value: { amount: money.amount, currency: money.currency ?? currency }, heard };
  };
  return confirmLoop({
    name: 'amount',
    lines: taskLines('amount', options),
    maxAttempts: options.maxAttempts,
    fromSpeech: (text) => check(parseMoney(text), text),
    fromKeys: (digits) => check(/^\d+$/.test(digits) ? { amount: Number(digits) } : undefined, digits),
    readBack: (v) => readBackAmount(v.amount, v.currency),
  });
}

/** A task collecting a name, said or spelled letter by letter ("ميم حاء ميم دال"), read back with its spelling. */
export function nameTask(options: TaskOptions = {}): CollectTask<string> {
  return confirmLoop<string>({
    name: 'name',
    lines: taskLines('name', options),
    maxAttempts: options.maxAttempts,
    fromSpeech(text) {
      const name = readName(text);
      return name ? { value: name, heard: name } : { problem: 'nothing' };
    },
    fromKeys: () => ({ problem: 'nothing' }),
    readBack: (name) => `${name}: ${spellName(name)}`,
  });
}
