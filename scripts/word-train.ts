/**
 * For maintainers: trains the spoken-word classifier of each band from a training set
 * (scripts/word-data.ts). The bench calls it once per held-out speaker; scripts/build-vocabulary.ts
 * once on everyone for the shipped weights.
 */
import type { WordBand } from '../src/sandbox/engines/word-features.ts';
import { UNKNOWN_CLASS, type StoredWordNet } from '../src/sandbox/engines/word-model.ts';
import type { WordSample } from './word-data.ts';
import { trainMlp, type MlpOptions } from './word-mlp.ts';

/** A network per band for `words` (and the unknown class) from `samples`. */
export function trainNets(samples: WordSample[], words: string[], bands: WordBand[] = ['wide', 'phone'], opts: MlpOptions = {}): Partial<Record<WordBand, StoredWordNet>> {
  const classes = [...words, UNKNOWN_CLASS];
  const used = samples.filter((s) => classes.includes(s.label));
  const y = used.map((s) => classes.indexOf(s.label));
  return Object.fromEntries(bands.map((band) => [band, trainMlp(used.map((s) => s[band]), y, classes, opts)]));
}
