/**
 * For maintainers: trains the spoken-word classifier of each band from a training set
 * (scripts/word-data.ts). The bench calls it once per held-out speaker; scripts/build-vocabulary.ts
 * once on everyone for the shipped weights.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WordBand } from '../src/sandbox/engines/word-features.ts';
import { UNKNOWN_CLASS, type StoredWordNet } from '../src/sandbox/engines/word-model.ts';
import type { WordSample } from './word-data.ts';
import { MLP_DEFAULTS, trainMlp, type MlpOptions } from './word-mlp.ts';

/** A network per band for `words` (and the unknown class) from `samples`. */
export function trainNets(samples: WordSample[], words: string[], bands: WordBand[] = ['wide', 'phone'], opts: MlpOptions = {}): Partial<Record<WordBand, StoredWordNet>> {
  const classes = [...words, UNKNOWN_CLASS];
  const used = samples.filter((s) => classes.includes(s.label));
  const y = used.map((s) => classes.indexOf(s.label));
  return Object.fromEntries(bands.map((band) => [band, trainMlp(used.map((s) => s[band]), y, classes, opts)]));
}

/**
 * trainNets, kept in `cacheDir` under a name made of `name` (which must say what the samples
 * are: the training set's name and what was left out of it) and the settings: the bench trains
 * a network per held-out speaker and word, minutes under load, and a rerun with other decision
 * settings needs the same networks.
 */
export function cachedNets(name: string, samples: WordSample[], words: string[], bands: WordBand[] = ['wide', 'phone'], opts: MlpOptions = {}, cacheDir?: string): Partial<Record<WordBand, StoredWordNet>> {
  if (!cacheDir) return trainNets(samples, words, bands, opts);
  const id = createHash('sha256').update(JSON.stringify([name, words, bands, { ...MLP_DEFAULTS, ...opts }, samples.length])).digest('hex').slice(0, 16);
  const file = join(cacheDir, `word-nets-${id}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Partial<Record<WordBand, StoredWordNet>>;
  const nets = trainNets(samples, words, bands, opts);
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(file, JSON.stringify(nets));
  return nets;
}
