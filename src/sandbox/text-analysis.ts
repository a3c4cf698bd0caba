import { normalizeForMatch } from './engines/tokenize.ts';

/**
 * The sandbox's text analysis: deliberately simple and documented. Sentiment counts words from
 * two short Arabic lexicons; keywords are the most frequent words that are not stop words; a
 * summary is the opening of the transcript. No model is involved.
 */
const POSITIVE = ['شكرا', 'ممتاز', 'رائع', 'جميل', 'سعيد', 'موافق', 'جيد', 'احسن', 'اشكرك', 'تمام', 'نعم', 'ممتن', 'مبروك', 'حلو', 'يعطيك'].map(normalizeForMatch);
const NEGATIVE = ['مشكله', 'سيء', 'سيئ', 'غاضب', 'ضاعت', 'سرقت', 'سرقه', 'للاسف', 'خطا', 'تاخير', 'لا', 'مستحيل', 'زعلان', 'شكوي', 'احتيال', 'متاخر'].map(normalizeForMatch);
const STOP = new Set(['في', 'من', 'الى', 'علي', 'عن', 'مع', 'ان', 'هذا', 'هذه', 'ذلك', 'التي', 'الذي', 'هل', 'ما', 'لا', 'نعم', 'و', 'او', 'ثم', 'كان', 'يا', 'انا', 'انت', 'هو', 'هي', 'نحن', 'كيف', 'متي', 'اين', 'لم', 'لن', 'قد', 'كل', 'اي', 'بعد', 'قبل'].map(normalizeForMatch));

export interface SentimentResult {
  label: 'positive' | 'negative' | 'neutral';
  score: number;
}

export function sentimentOf(text: string): SentimentResult {
  const words = normalizeForMatch(text).split(' ').filter(Boolean);
  const strip = (w: string) => w.replace(/^(و|ف|ب|ل|ال)+/, '');
  let pos = 0;
  let neg = 0;
  for (const w of words) {
    if (POSITIVE.includes(w) || POSITIVE.includes(strip(w))) pos++;
    if (NEGATIVE.includes(w) || NEGATIVE.includes(strip(w))) neg++;
  }
  if (pos === neg) return { label: 'neutral', score: Math.round((0.6 + 0.1 * Math.min(3, words.length) / 3) * 100) / 100 };
  const score = Math.round((0.55 + (0.4 * Math.abs(pos - neg)) / (pos + neg)) * 100) / 100;
  return { label: pos > neg ? 'positive' : 'negative', score };
}

export function keywordsOf(text: string, max = 10): { keyword: string; score: number }[] {
  const counts = new Map<string, number>();
  for (const raw of text.split(/\s+/)) {
    const w = normalizeForMatch(raw);
    if (w.length < 3 || STOP.has(w)) continue;
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0) || 1;
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || b[0].length - a[0].length)
    .slice(0, max)
    .map(([keyword, n]) => ({ keyword, score: Math.round((n / total) * 1000) / 1000 }));
}

export function summaryOf(text: string, maxChars = 200): string {
  const t = text.trim();
  if (t.length <= maxChars) return t;
  const cut = t.slice(0, maxChars);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1))}…`;
}
