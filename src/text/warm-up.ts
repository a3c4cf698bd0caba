import { normalizeForSpeech } from './normalize.ts';

/**
 * Sentences that take every pass of the normalizer: amounts and currencies, account and phone
 * numbers, dates, times and periods, percentages, ranges, fractions, units.
 */
const SAMPLES = [
  'تم تحويل 1,250.50 ريال إلى حسابك رقم 99812 بتاريخ 3/4/2025 الساعة 9:15 صباحًا بنسبة 15%.',
  'اتصل على 0551234567 أو ادفع $20 خلال 5 كم يوم الأحد 1 يناير، وآخر دفعة 250 ريالًا.',
  'الفترة من 9 إلى 12 مساءً، نصف 1/2 الكمية، SAR 300 و2,450 درهمًا.',
  'موعدك يوم 12/3/2026 الساعة 10:30 ورقم الطلب 4521.',
];

let warmed = false;

/**
 * Runs the speech normalizer `rounds` times on sentences that take all its passes, once per
 * process: a fresh process's first normalizations cost milliseconds each (its patterns compiled
 * on first use, then the regular expressions and the functions compiled again as they get hot),
 * and without this the first calls of a server pay that on their replies' path. `AgentServer`
 * calls it before it listens; call it yourself at start-up when you run sessions without it.
 */
export function warmUpNormalizer(rounds = 300): void {
  if (warmed) return;
  warmed = true;
  for (let i = 0; i < rounds; i++) normalizeForSpeech(SAMPLES[i % SAMPLES.length]!);
}
