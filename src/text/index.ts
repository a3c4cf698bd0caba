export { SentenceChunker, chunkText, type ChunkerOptions } from './chunker.ts';
export { normalizeForSpeech, stripMarkup, CURRENCIES } from './normalize.ts';
export { numberToWords, countNoun, digitsToWords, ordinal, type Noun, type Gender } from './numbers.ts';
export { normalizeForMatch } from './match.ts';
