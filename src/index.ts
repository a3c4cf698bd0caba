export * from './service/index.ts';
export { AgentSession, defaultLlm, type SessionOptions } from './session/agent-session.ts';
export type { Agent } from './session/agent.ts';
export type { SessionEvent, LateToolEvent, FixedLineKind, ScriptedLineKind, ReportLineKind, CallReport, ReportTurn, ReportHandoff, ReportTask, ReportTool, TurnMetrics, TurnKind, SessionState } from './session/events.ts';
export { REPORT_TOOL_RESULT_MAX } from './session/report.ts';
export type { SessionControl, GenerateReplyOptions } from './session/control.ts';
export { handoff, Handoff, HANDOFF_DEFAULTS, type HandoffCarry, type HandoffOptions } from './session/handoff.ts';
export { TASK_RUN_DEFAULTS } from './session/task-runner.ts';
export { CALL_ACTION_DEFAULTS } from './session/call-actions.ts';
export type { SessionStages, Recognizer, AgentVoice, TurnPolicy, BargeInPolicy } from './session/stage-types.ts';
export type { SttEvent } from './pipeline/stt.ts';
export type { CollectTask, TaskInput, TaskResult, TaskStep, TaskFailureReason } from './tasks/types.ts';
export type { Failure, FailureKind, FailureSource } from './session/failure.ts';
export { FAILURE_KINDS, TaskError } from './session/failure.ts';
export type { AmdReport } from './session/answer-detection.ts';
export * from './amd/index.ts';
export { createLogger, formatLogLine, type LoggerOptions, type LogFormat } from './session/logger.ts';
export * from './llm/index.ts';
export * from './text/index.ts';
export * from './tasks/index.ts';
export type { AudioFrame } from './audio/frame.ts';
export { encodeWav, decodeWav } from './audio/wav.ts';
export { mulaw, alaw } from './audio/g711.ts';
export { createResampler, resample } from './audio/resample.ts';
export {
  AUDIO_STREAM_DEFAULTS,
  AudioDecodeError,
  AudioStream,
  decodeAudio,
  openAudioStream,
  readAudioFile,
  type AudioDecoderKind,
  type AudioStreamOptions,
} from './audio/decode.ts';
export * from './transport/index.ts';
export { MODELS } from './models.ts';
export { TURN_DEFAULTS, TurnDetector, type TurnOptions, type TurnEnvironment, type EndOfTurn, type EndOfTurnReason, type UserTurn } from './pipeline/turns.ts';
export {
  arabicTurnPolicy, isYesNoQuestion, TURN_POLICY_DEFAULTS,
  type TurnJudge, type TurnVerdict, type TurnDecision, type TurnContext, type TurnExpectation, type DigitsExpectation, type TurnCueOptions,
} from './pipeline/turn-policy.ts';
export { TURN_CUES, DIALECTS, type Dialect, type DialectCues } from './pipeline/turn-cues.ts';
export { INTERRUPTION_DEFAULTS, InterruptionPolicy, type InterruptionOptions, type InterruptionDecision } from './pipeline/interruption.ts';
export { BACKCHANNELS } from './pipeline/backchannel.ts';
export { ENERGY_VAD_DEFAULTS, type EnergyVadOptions } from './pipeline/energy-vad.ts';
export { DTMF_DEFAULTS, type DtmfOptions } from './pipeline/dtmf.ts';
export { REPLY_DEFAULTS, ReplyStage, type ReplyOptions, type Voice } from './pipeline/reply.ts';
export { PLAYOUT_DEFAULTS, ReplyPlayout, type PlayoutOptions, type SpeechSink } from './pipeline/playout.ts';
export { SPOKEN_FORM_DEFAULTS, SpokenForm, speechLength, type SpokenFormOptions } from './pipeline/spoken.ts';
export { SPEAKER_DEFAULTS, type SpeakerOptions } from './pipeline/speaker.ts';
export { STT_STAGE_DEFAULTS, type SttStageOptions } from './pipeline/stt.ts';
export { CallAnalytics, type CallAnalyticsOptions, type JobSink } from './analytics/call-analytics.ts';
export { CallRecorder, RECORDER_DEFAULTS, type RecorderOptions } from './analytics/recorder.ts';
export { LocalFolderStore, type RecordingStore } from './analytics/store.ts';
export { verifyWebhook, signWebhook, SIGNATURE_HEADER, TIMESTAMP_HEADER, DELIVERY_HEADER } from './analytics/webhook.ts';
export type { CallSummary, SummaryTurn } from './analytics/summary.ts';
export type { AnalyticsJob } from './analytics/job.ts';
// Campaigns: the scheduler and the in-process runner (the BullMQ runner and the Redis store: `hiwar/campaign`).
export { campaignSettings, CAMPAIGN_DEFAULTS, decide, parseDuration, type CampaignSettings, type Decision } from './campaign/schedule.ts';
export { parseWindow, nextOpening, isOpen, WindowError, type CallingWindow } from './campaign/window.ts';
export { parseContacts, parseDoNotCall, type BadRow, type ParsedContacts } from './campaign/contacts.ts';
export { InProcessCampaigns, controlCampaign, type CampaignSpec } from './campaign/in-process.ts';
export { MemoryCampaignStore, type CampaignStore, type CampaignStatus, type CampaignMeta } from './campaign/store.ts';
export { csvSink, webhookSink, type CampaignResult, type ResultSink } from './campaign/results.ts';
export { campaignRoutes, type CampaignRoutesOptions } from './campaign/routes.ts';
export type { AttemptOutcome, CallResult, Contact, ContactState, DialAttempt, Dialer } from './campaign/types.ts';
export { CallTrace, type CallTraceOptions } from './observability/call-trace.ts';
export { traceSessions, tracingActive } from './observability/trace-sessions.ts';
export { parseTraceparent, formatTraceparent, TRACE_PARAMETERS } from './observability/trace-context.ts';
export { LiveCalls, LIVE_CALLS_DEFAULTS, type LiveCall, type LiveFailure, type LiveTool } from './observability/live-calls.ts';
export { liveCallsRoutes, type LiveRoutesOptions } from './observability/live-routes.ts';
