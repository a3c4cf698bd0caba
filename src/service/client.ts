import { resolveConfig, type ServiceConfig, type ServiceConfigInput } from './config.ts';
import type { CallOptions } from './http.ts';
import * as denoiseApi from './rest/denoise.ts';
import * as stt from './rest/stt.ts';
import * as tts from './rest/tts.ts';
import type {
  AnalysisDepth,
  CloneRequest,
  PreviewRequest,
  SttModel,
  TranscribeFlags,
  TranslationRequest,
  TtsRequest,
  Upload,
} from './types.ts';
import { LegacySttSocket, type LegacySttOptions } from './ws/legacy-stt.ts';
import { ListenSocket, type ListenOptions } from './ws/listen.ts';
import { probeListen, type ListenProbeOptions } from './ws/listen-probe.ts';
import { TtsSocket, type TtsSocketOptions } from './ws/tts.ts';

/**
 * One object for every endpoint of the service. Each method validates its input before the
 * network, returns a typed result and throws a typed error (see errors.ts).
 *
 * @example
 * const client = new ServiceClient(); // HIWAR_API_KEY, HIWAR_REGION, HIWAR_BASE_URL… or options
 * const audio = await client.synthesizeStream('faseeh-v1-preview', { voice_id: 'ar-najdi-male-2', text: 'مرحبا بكم' });
 * for await (const pcm of audio) play(pcm); // PCM16 at audio.sampleRate
 */
export class ServiceClient {
  readonly config: ServiceConfig;

  constructor(input: ServiceConfigInput = {}) {
    this.config = resolveConfig(input);
  }

  // catalogue
  /** The service's models (`GET /models`). */
  listModels = (o?: CallOptions) => tts.listModels(this.config, o);
  /** The voices of the catalogue and your account (`GET /voices`). */
  listVoices = (o?: CallOptions) => tts.listVoices(this.config, o);

  // synthesis
  /** Synthesizes text as a stream of PCM16 chunks, played as they arrive. */
  synthesizeStream = (modelId: string, req: TtsRequest, o?: CallOptions) => tts.synthesizeStream(this.config, modelId, req, o);
  /** Synthesizes text into one WAV file's bytes. */
  synthesizeWav = (modelId: string, req: TtsRequest, o?: CallOptions) => tts.synthesizeWav(this.config, modelId, req, o);
  /** Synthesizes text with per-character timings (audio and alignment events). */
  synthesizeWithTimestamps = (modelId: string, req: TtsRequest, o?: CallOptions) =>
    tts.synthesizeWithTimestamps(this.config, modelId, req, o);
  /** Opens the streaming TTS socket: text in as it is written, audio out per flushed generation. */
  openTts = (opts: TtsSocketOptions) => TtsSocket.connect(this.config, opts);

  // voices
  /** Previews a cloned voice speaking a text before saving it. */
  previewVoice = (req: PreviewRequest, o?: CallOptions) => tts.previewVoice(this.config, req, o);
  /** Clones a voice from a recording and saves it to your account. */
  cloneVoice = (req: CloneRequest, o?: CallOptions) => tts.cloneVoice(this.config, req, o);

  // text
  /** Adds diacritics (tashkil) to Arabic text. */
  diacritize = (text: string, o?: CallOptions) => tts.diacritize(this.config, text, o);

  // recognition
  /** Transcribes an audio file; the result's fields follow the flags asked for. */
  transcribe<const F extends TranscribeFlags>(req: F & { file: Upload }, o?: CallOptions) {
    return stt.transcribe<F>(this.config, req, o);
  }
  /** Transcribes an audio file and tells the speakers apart. */
  transcribeWithDiarization = (req: { file: Upload; model?: SttModel }, o?: CallOptions) =>
    stt.transcribeWithDiarization(this.config, req, o);
  /** Opens the live recognition socket (`/listen`): audio in, interim and final transcripts out. */
  openListen = (opts?: ListenOptions) => ListenSocket.connect(this.config, opts);
  /**
   * Whether the key may open `/listen`, asked without audio (opened, then closed at once):
   * resolves when the service accepts, rejects with the refusal's typed error
   * (`PermissionDeniedError` for a key restricted away from it). Holds one session for a moment.
   */
  probeListen = (opts?: ListenProbeOptions) => probeListen(this.config, opts);
  /** Opens the older streaming recognition socket. */
  openLegacyStt = (opts?: LegacySttOptions) => LegacySttSocket.connect(this.config, opts);

  // analysis
  /** Sentiment per speaker of a diarized transcription. */
  diarizationSentiment = (id: number, body?: { analysis_depth?: AnalysisDepth }, o?: CallOptions) =>
    stt.diarizationSentiment(this.config, id, body, o);
  /** Sentiment of a stored transcription. */
  transcriptionSentiment = (transcriptionId: string, o?: CallOptions) => stt.transcriptionSentiment(this.config, transcriptionId, o);
  /** Transcribes a meeting recording and writes its minutes. */
  minutesOfMeeting = (req: { file: Upload; model?: SttModel }, o?: CallOptions) => stt.minutesOfMeeting(this.config, req, o);
  /** Keywords of a stored transcription. */
  extractKeywords = (transcriptionId: string, o?: CallOptions) => stt.extractKeywords(this.config, transcriptionId, o);
  /** Translates text, streamed as it is produced. */
  translateStream = (req: TranslationRequest, o?: CallOptions) => stt.translateStream(this.config, req, o);

  // denoise
  /** Starts denoising an audio file; returns the job's ids. */
  denoise = (audio: Upload, o?: CallOptions) => denoiseApi.denoise(this.config, audio, o);
  /** Your denoise jobs, a page at a time. */
  listDenoise = (page?: { offset?: number; limit?: number }, o?: CallOptions) => denoiseApi.listDenoise(this.config, page, o);
  /** A denoise job's progress as typed events until it is done or fails. */
  denoiseProgress = (denoiseId: string, o?: CallOptions) => denoiseApi.denoiseProgress(this.config, denoiseId, o);
  /** Waits for a denoise job to finish and returns the clean audio's URL. */
  waitForDenoise = (denoiseId: string, onProgress?: Parameters<typeof denoiseApi.waitForDenoise>[2], o?: CallOptions) =>
    denoiseApi.waitForDenoise(this.config, denoiseId, onProgress, o);
}
