import { Vocabulary } from './vocabulary.ts';
import { VOCABULARY_DATA } from './vocabulary-data.ts';
import { unpackVocabulary } from './vocabulary-store.ts';
import { WordNet } from './word-model.ts';
import { WORD_MODEL_DATA } from './word-model-data.ts';

let built: Vocabulary | undefined;

/**
 * The vocabulary every sandbox hears in anyone's voice: the digits صفر to تسعة, نعم, لا and
 * موافق, a classifier trained on real recordings of six people and the sandbox's own voices,
 * with their templates beside it (built once, shared).
 */
export function builtInVocabulary(): Vocabulary {
  const nets = () => ({ wide: new WordNet(WORD_MODEL_DATA.wide), phone: new WordNet(WORD_MODEL_DATA.phone) });
  return (built ??= new Vocabulary(unpackVocabulary(VOCABULARY_DATA), {}, VOCABULARY_DATA.limits, nets()));
}

/** The words of the built-in vocabulary, digits first, for lists of what the sandbox understands. */
export const VOCABULARY_WORDS: readonly string[] = [...new Set(VOCABULARY_DATA.index.map(([word]) => word))];
