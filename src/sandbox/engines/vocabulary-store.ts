import type { WordTemplate } from './vocabulary.ts';
import type { WordBand } from './word-features.ts';

/**
 * The vocabulary's templates as shipped: one byte per coefficient (each coefficient scaled to
 * its largest magnitude over all templates), base64 in a TypeScript module so that nothing has
 * to be copied beside the compiled code.
 */
export interface StoredVocabulary {
  /** Coefficients per frame. */
  dim: number;
  /** Per coefficient: the value of one step of the stored byte. */
  steps: number[];
  /** Per template: word, source, band and frame count, in the order of the bytes. */
  index: [word: string, source: string, band: WordBand, frames: number][];
  /** Per band and word: the calibrated limit (`wide|نعم`). */
  limits: Record<string, number>;
  /** All frames of all templates, signed bytes, base64. */
  bytes: string;
}

/** Packs templates (and their calibrated limits) into the stored form. */
export function packVocabulary(templates: readonly WordTemplate[], limits: Record<string, number>): StoredVocabulary {
  const dim = templates[0]?.statics[0]?.length ?? 0;
  const peak = new Float64Array(dim);
  for (const t of templates) for (const f of t.statics) for (let i = 0; i < dim; i++) peak[i] = Math.max(peak[i]!, Math.abs(f[i]!));
  const steps = Array.from(peak, (p) => Math.max(p, 1e-6) / 127);
  const bytes = new Int8Array(templates.reduce((n, t) => n + t.statics.length * dim, 0));
  let o = 0;
  for (const t of templates) for (const f of t.statics) for (let i = 0; i < dim; i++) bytes[o++] = Math.round(f[i]! / steps[i]!);
  return {
    dim,
    steps: steps.map((s) => Number(s.toPrecision(6))),
    index: templates.map((t) => [t.word, t.source, t.band, t.statics.length]),
    limits,
    bytes: Buffer.from(bytes.buffer).toString('base64'),
  };
}

/** The templates of a stored vocabulary. */
export function unpackVocabulary(stored: StoredVocabulary): WordTemplate[] {
  const raw = Buffer.from(stored.bytes, 'base64');
  const bytes = new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  const { dim, steps } = stored;
  let o = 0;
  const templates = stored.index.map(([word, source, band, frames]) => {
    const statics = Array.from({ length: frames }, () => {
      const f = new Float32Array(dim);
      for (let i = 0; i < dim; i++) f[i] = bytes[o++]! * steps[i]!;
      return f;
    });
    return { word, source, band, statics };
  });
  if (o !== bytes.length) throw new Error(`vocabulary data: ${bytes.length} bytes for ${o} coefficients`);
  return templates;
}
