export * from './types.ts';
export { ABANDONED_TOOL_ERROR, runTools, toolMessages, type ToolOutcome } from './tools.ts';
export { streamReply, ToolRoundsExceeded, type ReplyEvent, type StreamReplyOptions } from './run.ts';
export { OpenAiLlm, type OpenAiOptions } from './openai.ts';
export { PRIMED_REQUEST_DEFAULTS } from './primed-requests.ts';
export { ScriptedLlm, matchIntent, defineIntent, type Intent, type IntentOf, type ScriptedOptions } from './scripted.ts';
export { callTools, type CallToolOptions } from './call-tools.ts';
export { TOOL_FILLER_DEFAULTS, type ToolFiller } from './tool-filler.ts';
export { withDeadlines, noticeSlowStart, limitSlowStart, ModelTimeoutError, DEFAULT_MODEL_DEADLINES, type ModelDeadlines } from './deadlines.ts';
