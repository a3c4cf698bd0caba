import type { ServiceConfig } from '../config.ts';
import { ProtocolError, ValidationError } from '../errors.ts';
import { read, request, type CallOptions } from '../http.ts';
import { ndjson } from '../streams.ts';
import type {
  Alignment,
  ClonedVoice,
  CloneRequest,
  DiacritizeResult,
  Model,
  PcmStream,
  PreviewRequest,
  TimestampedTtsEvent,
  TtsRequest,
  Voice,
} from '../types.ts';
import {
  checkFile,
  checkHttpSampleRate,
  checkPreviewText,
  checkSimilarity,
  checkSpeed,
  checkStability,
  isMissing,
  required,
} from '../validate.ts';
import { pcmStream } from './audio-stream.ts';
import { formData, unwrap } from './multipart.ts';

export async function listModels(cfg: ServiceConfig, opts: CallOptions = {}): Promise<Model[]> {
  const body = await request(cfg, { method: 'GET', path: '/models', idempotent: true }, opts, read.json<unknown>);
  return listOf<Model>(unwrap(body), 'models');
}

export async function listVoices(cfg: ServiceConfig, opts: CallOptions = {}): Promise<Voice[]> {
  const body = await request(cfg, { method: 'GET', path: '/voices', idempotent: true }, opts, read.json<unknown>);
  return listOf<Voice>(unwrap(body), 'voices');
}

/** Arrays come bare or wrapped as {voices: [...]}; both are accepted. */
function listOf<T>(body: unknown, key: string): T[] {
  if (Array.isArray(body)) return body as T[];
  const inner = body && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined;
  if (Array.isArray(inner)) return inner as T[];
  throw new ProtocolError(`expected an array of ${key}`);
}

function checkTts(modelId: string, req: TtsRequest, endpoint: string): void {
  required(modelId, 'model_id', endpoint);
  required(req.voice_id, 'voice_id', endpoint);
  required(req.text, 'text', endpoint);
  checkStability(req.stability, endpoint);
  checkSpeed(req.speed, endpoint);
  checkHttpSampleRate(req.sample_rate, endpoint);
}

const ttsPath = (modelId: string) => `/text-to-speech/${encodeURIComponent(modelId)}`;

/** Streaming synthesis: headerless PCM16 chunks as they are generated. */
export async function synthesizeStream(
  cfg: ServiceConfig,
  modelId: string,
  req: TtsRequest,
  opts: CallOptions = {},
): Promise<PcmStream> {
  checkTts(modelId, req, 'POST /text-to-speech');
  return request(
    cfg,
    { method: 'POST', path: ttsPath(modelId), json: { ...req, streaming: true }, stream: true },
    opts,
    (res) => pcmStream(res, req.sample_rate ?? 24000),
  );
}

/** Whole-file synthesis: a complete WAV file. */
export async function synthesizeWav(
  cfg: ServiceConfig,
  modelId: string,
  req: TtsRequest,
  opts: CallOptions = {},
): Promise<Uint8Array<ArrayBuffer>> {
  checkTts(modelId, req, 'POST /text-to-speech');
  return request(cfg, { method: 'POST', path: ttsPath(modelId), json: { ...req, streaming: false } }, opts, read.bytes);
}

interface TimestampLine {
  audio_base64?: string;
  alignment?: Alignment;
  normalized_alignment?: Alignment;
}

/**
 * Synthesis with character timings: audio events as they arrive, then one alignment event.
 * Break tags (<break time="500ms"/>) in the text are passed through untouched.
 */
export async function synthesizeWithTimestamps(
  cfg: ServiceConfig,
  modelId: string,
  req: Omit<TtsRequest, 'sample_rate'> & { sample_rate?: number },
  opts: CallOptions = {},
): Promise<AsyncIterable<TimestampedTtsEvent>> {
  checkTts(modelId, req, 'POST /text-to-speech/with-timestamps');
  const res = await request(
    cfg,
    { method: 'POST', path: `${ttsPath(modelId)}/with-timestamps`, json: req, stream: true },
    opts,
    read.raw,
  );
  return (async function* () {
    let aligned = false;
    for await (const line of ndjson<TimestampLine>(res.body)) {
      if (line.audio_base64) yield { type: 'audio', audio: new Uint8Array(Buffer.from(line.audio_base64, 'base64')) };
      if (line.alignment) {
        aligned = true;
        yield { type: 'alignment', alignment: line.alignment, normalizedAlignment: line.normalized_alignment };
      }
    }
    if (!aligned) throw new ProtocolError('timestamped synthesis ended without an alignment line');
  })();
}

/** Concatenated audio and the alignment of a timestamped synthesis. */
export async function collectTimestamped(
  events: AsyncIterable<TimestampedTtsEvent>,
): Promise<{ audio: Uint8Array; alignment: Alignment; normalizedAlignment: Alignment | undefined }> {
  const parts: Uint8Array[] = [];
  let alignment: Alignment | undefined;
  let normalizedAlignment: Alignment | undefined;
  for await (const e of events) {
    if (e.type === 'audio') parts.push(e.audio);
    else ({ alignment, normalizedAlignment } = e);
  }
  return { audio: Buffer.concat(parts), alignment: alignment!, normalizedAlignment };
}

/** Voice preview: PCM16 at the rate the content type names (24 kHz by the spec). */
export async function previewVoice(cfg: ServiceConfig, req: PreviewRequest, opts: CallOptions = {}): Promise<PcmStream> {
  const ep = 'POST /voices/preview';
  checkPreviewText(req.text, ep);
  required(req.similarity, 'similarity', ep);
  checkSimilarity(req.similarity, ep);
  required(req.model_id, 'model_id', ep);
  checkSpeed(req.speed, ep);
  checkFile(req.file, 'file', ep);
  const form = await formData({ text: req.text, similarity: req.similarity, model_id: req.model_id, speed: req.speed, file: req.file });
  return request(cfg, { method: 'POST', path: '/voices/preview', form, stream: true }, opts, (res) => pcmStream(res, 24000));
}

export async function cloneVoice(cfg: ServiceConfig, req: CloneRequest, opts: CallOptions = {}): Promise<ClonedVoice> {
  const ep = 'POST /voices/clone';
  checkFile(req.voice_file, 'voice_file', ep);
  checkFile(req.reference_audio_file, 'reference_audio_file', ep);
  // All the missing fields at once: one at a time, a script met "model is required", then "stability is required".
  const missing = (['text', 'name', 'model', 'stability'] as const).filter((f) => isMissing(req[f]));
  if (missing.length > 1) throw new ValidationError(`${missing.join(', ')} are required`, ep);
  for (const f of missing) required(req[f], f, ep);
  checkStability(req.stability, ep);
  const form = await formData({ ...req });
  return request(cfg, { method: 'POST', path: '/voices/clone', form }, opts, async (res) =>
    unwrap<ClonedVoice>(await read.json(res)),
  );
}

export async function diacritize(cfg: ServiceConfig, text: string, opts: CallOptions = {}): Promise<DiacritizeResult> {
  required(text, 'text', 'POST /tashkil/diacritize');
  return request(cfg, { method: 'POST', path: '/tashkil/diacritize', json: { text } }, opts, async (res) =>
    unwrap<DiacritizeResult>(await read.json(res)),
  );
}
