/**
 * Model ids. The spec renames the vendor's models; the live service and every real client of
 * it use the vendor's ids. The client sends whatever id it is given (an unknown id is the
 * service's to judge, never mapped silently); the families below only tell which of the
 * spec's per-model rules (languages on /listen) apply to an id.
 */

export type ModelIds = 'vendor' | 'spec';

/** Spec name ↔ vendor name, one row per model. */
export const MODEL_NAMES = [
  { kind: 'stt', spec: 'asr', vendor: ['munsit'] },
  { kind: 'stt', spec: 'asr-en-ar', vendor: ['munsit-en-ar'] },
  { kind: 'tts', spec: 'tts-v1-preview', vendor: ['faseeh-v1-preview', 'faseeh-mini-v1-preview'] },
] as const;

/** The spec's STT model families, which decide the languages `/listen` allows. */
export type SttFamily = 'asr' | 'asr-en-ar';

/**
 * The spec's model an id names under either naming, or undefined for an id hiwar does not
 * know (a newer model, a build name): no spec rule is then applied to it.
 */
export function specModelOf(id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  const row = MODEL_NAMES.find((m) => m.spec === id || (m.vendor as readonly string[]).includes(id));
  return row?.spec;
}

/** The STT family of an id; an absent id is the service's default, `asr`. */
export function sttFamily(id: string | undefined): SttFamily | undefined {
  if (id === undefined) return 'asr';
  const spec = specModelOf(id);
  return spec === 'asr' || spec === 'asr-en-ar' ? spec : undefined;
}

/** Languages the spec allows on /listen for a family. */
export const LISTEN_LANGUAGES: Record<SttFamily, readonly string[]> = {
  asr: ['ar'],
  'asr-en-ar': ['auto', 'ar', 'en', 'ar-en'],
};

/** The model ids the client sends when a call names none. */
export interface DefaultModels {
  /** STT model sent when a call gives none (/listen, file transcription, legacy socket). */
  stt: string;
  /** TTS model of the socket's initConnection and of HTTP synthesis when a call gives none. */
  tts: string;
}

/**
 * The default ids under each naming.
 * @default vendor — `munsit` and `faseeh-v1-preview`: the ids the live service reports and every
 * real client sends; `spec` gives the spec's `asr` and `tts-v1-preview`.
 */
export const DEFAULT_MODELS: Record<ModelIds, DefaultModels> = {
  vendor: { stt: 'munsit', tts: 'faseeh-v1-preview' },
  spec: { stt: 'asr', tts: 'tts-v1-preview' },
};
