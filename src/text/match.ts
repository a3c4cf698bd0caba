/** Text for matching: no diacritics or tatweel, unified alef/yeh/teh marbuta, no punctuation. */
export function normalizeForMatch(text: string): string {
  return text
    .replace(/<break[^>]*>/gi, ' ')
    .replace(/[\u064B-\u065F\u0670\u0640]/g, '')
    .replace(/[إأآٱ]/g, 'ا')
    .replace(/ى/g, 'ي')
    .replace(/ة/g, 'ه')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}
