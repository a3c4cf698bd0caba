export { SentenceChunker, chunkText, CHUNKER_DEFAULTS, type ChunkerOptions } from './chunker.ts';
export { normalizeForSpeech, createNormalizer, SpeechNormalizer, NORMALIZER_DEFAULTS, stripMarkup, CURRENCIES, type NormalizerOptions } from './normalize.ts';
export { numberToWords, cardinal, countNoun, digitsToWords, ordinal, type Noun, type Gender, type GrammaticalCase } from './numbers.ts';
export { Lexicon, type NounEntry } from './lexicon.ts';
export { REFERENCE_KEYWORDS, spellReference } from './references.ts';
export { normalizeForMatch } from './match.ts';
