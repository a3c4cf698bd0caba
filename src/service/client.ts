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
import { TtsSocket, type TtsSocketOptions } from './ws/tts.ts';

/**
 * One object for every endpoint of the service. Each method validates its input before the
 * network, returns a typed result and throws a typed error (see errors.ts).
 */
export class ServiceClient {
  readonly config: ServiceConfig;

  constructor(input: ServiceConfigInput = {}) {
    this.config = resolveConfig(input);
  }

  // catalogue
  listModels = (o?: CallOptions) => tts.listModels(this.config, o);
  listVoices = (o?: CallOptions) => tts.listVoices(this.config, o);

  // synthesis
  synthesizeStream = (modelId: string, req: TtsRequest, o?: CallOptions) => tts.synthesizeStream(this.config, modelId, req, o);
  synthesizeWav = (modelId: string, req: TtsRequest, o?: CallOptions) => tts.synthesizeWav(this.config, modelId, req, o);
  synthesizeWithTimestamps = (modelId: string, req: TtsRequest, o?: CallOptions) =>
    tts.synthesizeWithTimestamps(this.config, modelId, req, o);
  openTts = (opts: TtsSocketOptions) => TtsSocket.connect(this.config, opts);

  // voices
  previewVoice = (req: PreviewRequest, o?: CallOptions) => tts.previewVoice(this.config, req, o);
  cloneVoice = (req: CloneRequest, o?: CallOptions) => tts.cloneVoice(this.config, req, o);

  // text
  diacritize = (text: string, o?: CallOptions) => tts.diacritize(this.config, text, o);

  // recognition
  transcribe<const F extends TranscribeFlags>(req: F & { file: Upload }, o?: CallOptions) {
    return stt.transcribe<F>(this.config, req, o);
  }
  transcribeWithDiarization = (req: { file: Upload; model?: SttModel }, o?: CallOptions) =>
    stt.transcribeWithDiarization(this.config, req, o);
  openListen = (opts?: ListenOptions) => ListenSocket.connect(this.config, opts);
  openLegacyStt = (opts?: LegacySttOptions) => LegacySttSocket.connect(this.config, opts);

  // analysis
  diarizationSentiment = (id: number, body?: { analysis_depth?: AnalysisDepth }, o?: CallOptions) =>
    stt.diarizationSentiment(this.config, id, body, o);
  transcriptionSentiment = (transcriptionId: string, o?: CallOptions) => stt.transcriptionSentiment(this.config, transcriptionId, o);
  minutesOfMeeting = (req: { file: Upload; model?: SttModel }, o?: CallOptions) => stt.minutesOfMeeting(this.config, req, o);
  extractKeywords = (transcriptionId: string, o?: CallOptions) => stt.extractKeywords(this.config, transcriptionId, o);
  translateStream = (req: TranslationRequest, o?: CallOptions) => stt.translateStream(this.config, req, o);

  // denoise
  denoise = (audio: Upload, o?: CallOptions) => denoiseApi.denoise(this.config, audio, o);
  listDenoise = (page?: { offset?: number; limit?: number }, o?: CallOptions) => denoiseApi.listDenoise(this.config, page, o);
  denoiseProgress = (denoiseId: string, o?: CallOptions) => denoiseApi.denoiseProgress(this.config, denoiseId, o);
  waitForDenoise = (denoiseId: string, onProgress?: Parameters<typeof denoiseApi.waitForDenoise>[2], o?: CallOptions) =>
    denoiseApi.waitForDenoise(this.config, denoiseId, onProgress, o);
}
