export * from './config.ts';
export {
  ServiceError,
  BadRequestError,
  ValidationError,
  AuthenticationError,
  InsufficientBalanceError,
  PermissionDeniedError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServerError,
  TransportError,
  ProtocolError,
  parseErrorBody,
  ERROR_BODY_LIMITS,
  parseRetryAfter,
  redact,
  safeUrl,
  type ErrorCode,
  type ServiceErrorInit,
} from './errors.ts';
export type { CallOptions } from './http.ts';
export * from './types.ts';
export {
  LISTEN_SAMPLE_RATES,
  TTS_SOCKET_FORMATS,
  DENOISE_MAX_BYTES,
  DENOISE_MAX_SECONDS,
  checkModelId,
  checkListenLanguage,
} from './validate.ts';
export * from './models.ts';
export { ServiceClient } from './client.ts';
export { collectTimestamped } from './rest/tts.ts';
export { collectPcm } from './rest/audio-stream.ts';
export { ListenSocket, DEFAULT_LIVENESS, type ListenOptions, type ListenLiveness } from './ws/listen.ts';
export { LISTEN_PROBE_DEFAULTS, type ListenProbeOptions } from './ws/listen-probe.ts';
export type * from './ws/listen-events.ts';
export { TtsSocket, type TtsSocketOptions, type TtsEvent, type TtsOutputFormat } from './ws/tts.ts';
export { GENERATION_END_DEFAULTS, type GenerationEndOptions, type GenerationEndRule } from './ws/tts-generation.ts';
export { REFUSAL_BODY_LIMITS } from './ws/open.ts';
export { LegacySttSocket, type LegacySttOptions, type LegacySttEvent } from './ws/legacy-stt.ts';
export { classifyClose, type CloseInfo, type CloseKind } from './ws/close-codes.ts';
