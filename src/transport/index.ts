export type { CallInfo, CallControl, PlaybackUpdate, Transport, TransportEvent, TransportOutput, TransferOptions } from './types.ts';
export { Alarm, ScaledClock, VirtualClock, realClock, type Clock } from './clock.ts';
export { HeldEvents } from './held-events.ts';
export { CallerAudio, CALLER_AUDIO_DEFAULTS, type CallerAudioOptions } from './caller-audio.ts';
export { PacedOutput, PACED_OUTPUT_DEFAULTS, type PacedOutputOptions, type PacedSink } from './paced-output.ts';
export { ResamplingOutput } from './resampling-output.ts';
export { PlayoutMarks } from './playout-marks.ts';
