import { Vocabulary } from './vocabulary.ts';
import { VOCABULARY_DATA } from './vocabulary-data.ts';
import { unpackVocabulary } from './vocabulary-store.ts';

let built: Vocabulary | undefined;

/**
 * The vocabulary every sandbox hears in anyone's voice: the digits صفر to تسعة, نعم, لا and
 * موافق, from real recordings of six people and the sandbox's own voices (built once, shared).
 */
export function builtInVocabulary(): Vocabulary {
  return (built ??= new Vocabulary(unpackVocabulary(VOCABULARY_DATA), {}, VOCABULARY_DATA.limits));
}

/** The words of the built-in vocabulary, digits first, for lists of what the sandbox understands. */
export const VOCABULARY_WORDS: readonly string[] = [...new Set(VOCABULARY_DATA.index.map(([word]) => word))];
