import { ValidationError } from './errors.ts';
import { LISTEN_LANGUAGES, sttFamily } from './models.ts';
import type { Upload } from './types.ts';

/**
 * Rules the spec states, checked before any byte leaves the machine. Messages follow the
 * service's own shapes ('<field> is required', 'stability must be a number between 0 and 1').
 * Model ids are not among them: any string goes to the service (see models.ts).
 */

export const LISTEN_SAMPLE_RATES = [8000, 16000] as const;
/** Output formats the TTS socket takes. */
export const TTS_SOCKET_FORMATS = ['pcm_8000', 'pcm_16000', 'pcm_22050', 'pcm_24000'] as const;
/** The largest file `/denoise` takes (200 MB). */
export const DENOISE_MAX_BYTES = 200 * 1024 * 1024;
/** The longest audio `/denoise` takes (15 minutes). */
export const DENOISE_MAX_SECONDS = 15 * 60;

/** A required field left out: absent, null or the empty string. */
export const isMissing = (value: unknown): boolean => value === undefined || value === null || value === '';

export function required(value: unknown, field: string, endpoint?: string): void {
  if (isMissing(value)) {
    throw new ValidationError(`${field} is required`, endpoint);
  }
}

export function inRange(
  value: number | undefined,
  field: string,
  min: number,
  max: number,
  endpoint?: string,
): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new ValidationError(`${field} must be a number between ${min} and ${max}`, endpoint);
  }
}

export const checkSpeed = (v: number | undefined, ep?: string) => inRange(v, 'speed', 0.7, 1.2, ep);
export const checkStability = (v: number | undefined, ep?: string) => inRange(v, 'stability', 0, 1, ep);
export const checkSimilarity = (v: number | undefined, ep?: string) => inRange(v, 'similarity', 0, 1, ep);

export function checkPreviewText(text: string | undefined, endpoint?: string): void {
  required(text, 'text', endpoint);
  const words = text!.trim().split(/\s+/u).filter(Boolean).length;
  if (words < 3 || text!.trim().length < 10) {
    throw new ValidationError('text must contain at least 3 words and 10 characters', endpoint);
  }
}

export function checkFile(file: Upload | undefined, field: string, endpoint?: string): void {
  const isBlob = typeof Blob !== 'undefined' && file instanceof Blob;
  const isBytes = !!file && !isBlob && typeof file === 'object' && 'data' in file && 'filename' in file;
  if (!isBlob && !isBytes) {
    // A path is what a user tries first; say how to make a file of it (streamed from disk).
    const given: unknown = file;
    const got = typeof given === 'string' ? `a string (${JSON.stringify(given.slice(0, 60))})` : given === undefined ? 'nothing' : typeof given;
    throw new ValidationError(
      `${field} is required and must be a file: a File or Blob (from a path: new File([await openAsBlob(path)], 'name.wav'), openAsBlob from node:fs) or { data, filename }; got ${got}`,
      endpoint,
    );
  }
}

export function uploadSize(file: Upload): number {
  if (file instanceof Blob) return file.size;
  return file.data.byteLength;
}

export function checkDenoiseSize(file: Upload, endpoint?: string): void {
  if (uploadSize(file) > DENOISE_MAX_BYTES) {
    throw new ValidationError('File too large: the maximum size is 200 MB', endpoint);
  }
}

export function checkListenSampleRate(rate: number | undefined, endpoint = '/listen'): void {
  if (rate === undefined) return;
  if (!(LISTEN_SAMPLE_RATES as readonly number[]).includes(rate)) {
    throw new ValidationError('sample_rate must be 8000 or 16000', endpoint);
  }
}

/** A model id is any non-empty string; the service decides whether it knows it. */
export function checkModelId(model: string | undefined, endpoint?: string): void {
  if (model === undefined) return;
  if (typeof model !== 'string' || !model.trim()) throw new ValidationError('model must be a non-empty string', endpoint);
}

/** The spec's languages for the model's family; ids of unknown families are not checked. */
export function checkListenLanguage(model: string | undefined, language: string | undefined, endpoint = '/listen'): void {
  const family = sttFamily(model);
  if (language === undefined || !family) return;
  const allowed = LISTEN_LANGUAGES[family];
  if (!allowed.includes(language)) {
    throw new ValidationError(`language must be one of ${allowed.join(', ')} for model ${model ?? 'asr'}`, endpoint);
  }
}

export function checkOutputFormat(format: string | undefined, endpoint = '/websocket/text-to-speech'): void {
  if (format === undefined) return;
  if (!(TTS_SOCKET_FORMATS as readonly string[]).includes(format)) {
    throw new ValidationError(`output_format must be one of ${TTS_SOCKET_FORMATS.join(', ')}`, endpoint);
  }
}

export function checkHttpSampleRate(rate: number | undefined, endpoint?: string): void {
  inRange(rate, 'sample_rate', 8000, 48000, endpoint);
  if (rate !== undefined && !Number.isInteger(rate)) {
    throw new ValidationError('sample_rate must be an integer', endpoint);
  }
}

export function checkPaging(offset: number | undefined, limit: number | undefined, endpoint?: string): void {
  if (offset !== undefined && (!Number.isInteger(offset) || offset < 0)) {
    throw new ValidationError('offset must be an integer of at least 0', endpoint);
  }
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new ValidationError('limit must be an integer of at least 1', endpoint);
  }
}

export function checkEndpointing(ms: number | undefined, endpoint = '/listen'): void {
  inRange(ms, 'endpointing', 100, 5000, endpoint);
}
