import type { ServiceConfig } from '../config.ts';
import { read, request, type CallOptions } from '../http.ts';
import { chunks, ndjson, sse } from '../streams.ts';
import type {
  AnalysisDepth,
  DiarizationSentiment,
  DiarizationTranscribeResult,
  KeywordExtraction,
  MinutesOfMeeting,
  SttModel,
  TranscribeFlags,
  Transcription,
  TranscriptionSentiment,
  TranslationChunk,
  TranslationRequest,
  Upload,
} from '../types.ts';
import { ValidationError } from '../errors.ts';
import { sttFamily } from '../models.ts';
import { checkFile, checkModelId, required } from '../validate.ts';
import { formData, unwrap } from './multipart.ts';

/**
 * File transcription. The result type follows the flags given: `turns` only with a turn flag,
 * `analysis` with gender or sentiment, diarization fields with `diarize: true`.
 */
export async function transcribe<const F extends TranscribeFlags>(
  cfg: ServiceConfig,
  req: F & { file: Upload },
  opts: CallOptions = {},
): Promise<Transcription<F>> {
  const ep = 'POST /audio/transcribe';
  checkFile(req.file, 'file', ep);
  const model = req.model ?? cfg.models.stt;
  checkModelId(model, ep);
  // The spec's rule, for the ids hiwar knows to be `asr`; other ids are the service's to judge.
  if (req.language !== undefined && sttFamily(model) === 'asr') {
    throw new ValidationError(`language is only accepted with model asr-en-ar (or munsit-en-ar), not ${model}`, ep);
  }
  const form = await formData({
    file: req.file,
    model,
    hotwords: req.hotwords,
    return_confidence: req.return_confidence,
    return_turns: req.return_turns,
    return_gender: req.return_gender,
    return_sentiment: req.return_sentiment,
    return_timestamps: req.return_timestamps,
    language: req.language,
    diarize: req.diarize,
  });
  return request(cfg, { method: 'POST', path: '/audio/transcribe', form }, opts, async (res) =>
    unwrap<Transcription<F>>(await read.json(res)),
  );
}

export async function transcribeWithDiarization(
  cfg: ServiceConfig,
  req: { file: Upload; model?: SttModel },
  opts: CallOptions = {},
): Promise<DiarizationTranscribeResult> {
  const ep = 'POST /audio/diarization/transcribe';
  checkFile(req.file, 'file', ep);
  const model = req.model ?? cfg.models.stt;
  checkModelId(model, ep);
  const form = await formData({ file: req.file, model });
  return request(cfg, { method: 'POST', path: '/audio/diarization/transcribe', form }, opts, async (res) =>
    unwrap<DiarizationTranscribeResult>(await read.json(res)),
  );
}

export async function diarizationSentiment(
  cfg: ServiceConfig,
  diarizationId: number,
  body: { analysis_depth?: AnalysisDepth } = {},
  opts: CallOptions = {},
): Promise<DiarizationSentiment> {
  const ep = 'POST /diarization/{id}/sentiment-analysis';
  if (!Number.isInteger(diarizationId)) throw new ValidationError('diarizationId must be a number', ep);
  if (body.analysis_depth && !['light', 'standard', 'deep'].includes(body.analysis_depth)) {
    throw new ValidationError('analysis_depth must be one of light, standard, deep', ep);
  }
  return request(
    cfg,
    { method: 'POST', path: `/diarization/${diarizationId}/sentiment-analysis`, json: body },
    opts,
    async (res) => unwrap<DiarizationSentiment>(await read.json(res)),
  );
}

export async function minutesOfMeeting(
  cfg: ServiceConfig,
  req: { file: Upload; model?: SttModel; [field: string]: unknown },
  opts: CallOptions = {},
): Promise<MinutesOfMeeting> {
  const ep = 'POST /minutes-of-meeting/transcribe';
  checkFile(req.file, 'file', ep);
  checkModelId(req.model, ep);
  const { file, ...rest } = { ...req, model: req.model ?? cfg.models.stt };
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) fields[k] = String(v);
  const form = await formData({ file, ...fields });
  return request(cfg, { method: 'POST', path: '/minutes-of-meeting/transcribe', form }, opts, async (res) =>
    unwrap<MinutesOfMeeting>(await read.json(res)),
  );
}

export async function extractKeywords(cfg: ServiceConfig, transcriptionId: string, opts: CallOptions = {}): Promise<KeywordExtraction> {
  required(transcriptionId, 'transcriptionId', 'POST /minutes-of-meeting/{id}/keyword-extraction');
  return request(
    cfg,
    { method: 'POST', path: `/minutes-of-meeting/${encodeURIComponent(transcriptionId)}/keyword-extraction`, json: {} },
    opts,
    async (res) => unwrap<KeywordExtraction>(await read.json(res)),
  );
}

export async function transcriptionSentiment(
  cfg: ServiceConfig,
  transcriptionId: string,
  opts: CallOptions = {},
): Promise<TranscriptionSentiment> {
  required(transcriptionId, 'transcriptionId', 'POST /audio/{id}/sentiment-analysis');
  return request(
    cfg,
    { method: 'POST', path: `/audio/${encodeURIComponent(transcriptionId)}/sentiment-analysis`, json: {} },
    opts,
    async (res) => unwrap<TranscriptionSentiment>(await read.json(res)),
  );
}

function chunkOf(raw: unknown): TranslationChunk {
  if (typeof raw === 'string') return { text: raw, done: false, raw };
  const o = (raw ?? {}) as Record<string, unknown>;
  const text = [o.text, o.translation, o.delta, o.content].find((v) => typeof v === 'string') as string | undefined;
  return { text: text ?? '', done: o.done === true || o.type === 'done', raw };
}

/**
 * Streamed translation. The spec leaves the body format open, so the stream is read by its
 * content type: SSE, NDJSON, or plain text chunks.
 */
export async function translateStream(
  cfg: ServiceConfig,
  req: TranslationRequest,
  opts: CallOptions = {},
): Promise<AsyncIterable<TranslationChunk>> {
  const ep = 'POST /translation/stream';
  required(req.text, 'text', ep);
  required(req.target_language, 'target_language', ep);
  const res = await request(cfg, { method: 'POST', path: '/translation/stream', json: req, stream: true }, opts, read.raw);
  const type = res.headers.get('content-type') ?? '';
  return (async function* () {
    if (type.includes('text/event-stream')) {
      for await (const m of sse(res.body)) {
        if (m.data === '[DONE]') return;
        let parsed: unknown = m.data;
        try {
          parsed = JSON.parse(m.data);
        } catch {
          // plain text data lines are allowed
        }
        yield chunkOf(parsed);
      }
    } else if (type.includes('ndjson') || type.includes('jsonl')) {
      for await (const line of ndjson<unknown>(res.body)) yield chunkOf(line);
    } else {
      const decoder = new TextDecoder();
      for await (const c of chunks(res.body)) {
        yield chunkOf(decoder.decode(c, { stream: true }));
      }
    }
  })();
}
