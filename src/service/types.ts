/**
 * Resource shapes of the service. Fields the spec leaves open are typed as optional and the
 * records keep unknown extra fields (index signature) so that additive changes pass through.
 */

/** Model ids are plain strings: the service adds models without notice. */
export type ModelId = string;
/** Any model id; the spec's and the vendor's names are listed in models.ts. */
export type SttModel = 'munsit' | 'munsit-en-ar' | 'asr' | 'asr-en-ar' | (string & {});

/** A model of the catalogue (`GET /models`). */
export interface Model {
  id?: string;
  model_id?: string;
  model_name?: string;
  cost?: number;
  description?: string;
  [extra: string]: unknown;
}

/** A voice of the catalogue or of your account (`GET /voices`). */
export interface Voice {
  voice_id: string;
  name?: string;
  description?: string | null;
  gender?: string | null;
  age?: string | null;
  languages?: string[];
  dialect?: string[];
  type?: string | null;
  sample_url?: string;
  avatar_url?: string | null;
  [extra: string]: unknown;
}

/** A voice cloned and saved to your account. */
export interface ClonedVoice extends Voice {
  id: string;
  name: string;
  languages: string[];
  dialect: string[];
  sample_url: string;
  stability: number;
}

// ---------- text to speech ----------

/** A synthesis request: the voice, the text and optional voice settings. */
export interface TtsRequest {
  voice_id: string;
  text: string;
  /** 0..1, default 0.5 */
  stability?: number;
  /** 0.7..1.2, default 1.0 */
  speed?: number;
  /** 8000..48000, default 24000 */
  sample_rate?: number;
  dialect?: 'auto' | 'emirati' | 'fusha' | (string & {});
}

/** Character timings; the characters concatenate to the text they align to. */
export interface Alignment {
  characters: string[];
  character_start_times_seconds: number[];
  character_end_times_seconds: number[];
}

/** What timed synthesis streams: audio chunks and character alignments. */
export type TimestampedTtsEvent =
  | { type: 'audio'; audio: Uint8Array }
  | { type: 'alignment'; alignment: Alignment; normalizedAlignment: Alignment | undefined };

/** Streamed PCM16 audio, with its sample rate and content type. */
export interface PcmStream extends AsyncIterable<Uint8Array> {
  sampleRate: number;
  contentType: string;
}

// ---------- voice cloning ----------

/** A file for a multipart upload: bytes with a name, or a Blob/File. */
export type Upload = Blob | { data: Uint8Array | ArrayBuffer; filename: string; contentType?: string };

/** A request to preview a cloned voice speaking a text. */
export interface PreviewRequest {
  text: string;
  similarity: number;
  model_id: ModelId;
  speed?: number;
  file: Upload;
}

/** A request to clone a voice from a recording. */
export interface CloneRequest {
  voice_file: Upload;
  reference_audio_file: Upload;
  text: string;
  stability: number;
  name: string;
  model: ModelId;
  description?: string;
  gender?: string;
  age?: string;
  /** Sent comma-separated. */
  languages?: string[] | string;
  dialects?: string[] | string;
  avatar_url?: string;
}

// ---------- tashkil ----------

/** Diacritized text beside the original. */
export interface DiacritizeResult {
  original_text: string;
  diacritized_text: string;
  [extra: string]: unknown;
}

// ---------- file transcription ----------

/** What a file transcription asks for (model, vocabulary, timestamps, turns, gender, sentiment); the result is typed by them. */
export interface TranscribeFlags {
  model?: SttModel;
  /** Custom vocabulary; sent comma-separated. */
  hotwords?: string[] | string;
  return_confidence?: boolean;
  return_turns?: boolean;
  return_gender?: boolean;
  return_sentiment?: boolean;
  return_timestamps?: boolean;
  /** Only with asr-en-ar (munsit-en-ar). */
  language?: 'auto' | 'ar' | 'en' | 'ar-en';
  diarize?: boolean;
}

/** A label with its score (a gender, a sentiment). */
export interface Label {
  label: string;
  score: number;
}

type If<C, T> = C extends true ? T : unknown;
type TurnsOn<F> = F extends { return_turns: true } | { return_gender: true } | { return_sentiment: true } ? true : false;

/** One word with its start and end (and its speaker's labels when asked for). */
export interface WordStamp<F extends TranscribeFlags = TranscribeFlags> {
  word: string;
  start: number;
  end: number;
  confidence: F extends { return_confidence: true } ? number : number | undefined;
  speaker: F extends { diarize: true } ? number | undefined : undefined;
}

/** One speaker turn of a transcription, with the labels its flags asked for. */
export type Turn<F extends TranscribeFlags = TranscribeFlags> = {
  turn_id: number;
  start: number;
  end: number;
  text: string;
} & If<F extends { return_turns: true } ? true : false, { is_complete: boolean; turn_probability: number }> &
  If<F extends { return_gender: true } ? true : false, { gender: Label }> &
  If<F extends { return_sentiment: true } ? true : false, { sentiment: Label }>;

/** A transcription's analysis: the count of turns, and gender or sentiment when asked for. */
export type Analysis<F extends TranscribeFlags = TranscribeFlags> = { turns: number } & If<
  F extends { return_gender: true } ? true : false,
  { gender: { dominant: string; by_duration_s: Record<string, number> } }
> &
  If<F extends { return_sentiment: true } ? true : false, { sentiment: { dominant: string; counts: Record<string, number> } }>;

/** One utterance of a diarized transcription: the speaker, its span and text. */
export interface Utterance {
  speaker: number;
  start: number;
  end: number;
  text: string;
  [extra: string]: unknown;
}

/** How long one speaker talked. */
export interface SpeakerTalkTime {
  speaker: number;
  [extra: string]: unknown;
}

/** How the speakers were told apart: status, speaker count and talk time. */
export interface DiarizationInfo {
  status: 'ok' | 'unavailable' | (string & {});
  speaker_cap_reached: boolean;
}

/**
 * The transcription data object. The type parameter is the flags of the request, so that
 * `turns` exists only when a turn flag was set, `analysis` only with gender or sentiment, and
 * the diarization fields only with `diarize: true` (they can still be missing at run time when
 * diarization.status is "unavailable").
 */
export type Transcription<F extends TranscribeFlags = TranscribeFlags> = {
  transcriptionId: string;
  transcription: string;
  summary: string;
  duration: number;
  timestamps: WordStamp<F>[];
  /** `fileSize` comes as text from the live service (`"0.08 MB"`); a number is accepted too. */
  stats?: { fileName?: string; fileSize?: number | string; creditsConsumed?: number };
  [extra: string]: unknown;
} & If<TurnsOn<F>, { turns: Turn<F>[] }> &
  If<F extends { return_gender: true } | { return_sentiment: true } ? true : false, { analysis: Analysis<F> }> &
  If<
    F extends { diarize: true } ? true : false,
    { diarization: DiarizationInfo; utterances?: Utterance[]; speakers?: SpeakerTalkTime[] }
  >;

/** A transcription with its diarization: the words and who said what when. */
export interface DiarizationTranscribeResult {
  transcription: { text?: string; timestamps?: { word: string; start: number; end: number }[]; [k: string]: unknown };
  diarization: { segments?: { start: number; end: number; speaker: string | number }[]; [k: string]: unknown };
  merged: { start: number; end: number; speaker: string | number; text: string }[];
  duration: number;
  [extra: string]: unknown;
}

/** How deep a sentiment analysis goes (deeper costs more). */
export type AnalysisDepth = 'light' | 'standard' | 'deep';

/** Sentiment of a diarized transcription, overall and per speaker. */
export interface DiarizationSentiment {
  language?: string;
  overall_sentiment?: unknown;
  speaker_sentiments?: unknown;
  sentiment_trends?: unknown;
  confidence_score?: number;
  [extra: string]: unknown;
}

/** A meeting's transcript, summary, points and actions. */
export interface MinutesOfMeeting {
  transcriptionId?: string;
  originalTranscript?: string;
  transcription?: string;
  summary?: string;
  duration?: number;
  [extra: string]: unknown;
}

/** A transcription's sentiment and its score. */
export interface TranscriptionSentiment {
  sentiment?: string;
  score?: number;
  [extra: string]: unknown;
}

/** Keywords of a transcription, with scores when the service gives them. */
export interface KeywordExtraction {
  keywords?: string[] | { keyword: string; score?: number }[];
  [extra: string]: unknown;
}

/** A translation request: the text and the target language. */
export interface TranslationRequest {
  text: string;
  target_language: string;
  source_language?: string;
  [extra: string]: unknown;
}

/** One piece of a streamed translation; the body format is not fixed by the spec. */
export interface TranslationChunk {
  text: string;
  done: boolean;
  raw: unknown;
}

// ---------- denoise ----------

/** A denoise job as started: its job id and denoise id. */
export interface DenoiseJob {
  jobId: string;
  denoiseId: string;
}

/** One of your denoise jobs as listed: its id, status and the clean audio's URL when done. */
export interface DenoiseRecord {
  denoiseId: string;
  /** Final audio URL of a completed job (field name varies: url, audio_url, audioUrl). */
  url?: string;
  audio_url?: string;
  audioUrl?: string;
  createdAt?: string;
  [extra: string]: unknown;
}

/** A denoise job's progress: processing, done with a URL, or failed. */
export type DenoiseProgressEvent =
  | { stage: 'processing'; progress?: number; [extra: string]: unknown }
  | { stage: 'done'; url: string; [extra: string]: unknown }
  | { stage: 'error'; message: string; [extra: string]: unknown };

