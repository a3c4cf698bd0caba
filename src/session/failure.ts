import { inspect } from 'node:util';
// The error classes' own module: the package's main entry is about 150 modules, a third of what
// importing hiwar loads (the same classes: the main entry re-exports this module).
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai/core/error';
import type { CloseInfo } from '../service/ws/close-codes.ts';
import {
  clip,
  AuthenticationError,
  InsufficientBalanceError,
  PermissionDeniedError,
  ProtocolError,
  RateLimitError,
  ServiceError,
  TransportError,
} from '../service/errors.ts';
import { ModelTimeoutError } from '../llm/deadlines.ts';
import { ToolRoundsExceeded } from '../llm/run.ts';

/** Every kind of failure a session reports, a closed set (a `/metrics` label takes them as they are). */
export const FAILURE_KINDS = ['auth', 'balance', 'rate', 'network', 'timeout', 'protocol', 'model', 'hook', 'tool', 'task'] as const;

/** What kind of failure a session `error` event reports: what an operator acts on. */
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** Which part failed: recognition, synthesis, the model, the transport, or `agent`: the agent's own code (a hook, a tool or a task) threw. */
export type FailureSource = 'stt' | 'tts' | 'llm' | 'transport' | 'agent';

/** A failure of the call, classified by kind, with a clean message for people. */
export interface Failure {
  kind: FailureKind;
  /** A sentence for people: what failed and how, never raw SDK text or the key. */
  message: string;
  /** The tool whose code threw (`kind: 'tool'`) or that worked past its deadline (`kind: 'timeout'`, source `agent`). */
  tool?: string;
  /** The task whose code threw (`kind: 'task'`), by its `name`. */
  task?: string;
}

const WHAT: Record<FailureSource, string> = {
  stt: 'speech recognition',
  tts: 'speech synthesis',
  llm: 'the language model',
  transport: 'the call connection',
  agent: "the agent's code",
};

const HOW: Record<FailureKind, string> = {
  auth: 'refused the API key or its access',
  balance: 'stopped: the wallet is empty',
  rate: 'is over its rate or concurrency limit',
  network: 'lost its connection',
  timeout: 'did not answer in time',
  protocol: 'answered something it should not have',
  model: 'failed to produce an answer',
  hook: 'threw an error',
  tool: 'threw an error',
  task: 'threw an error',
};

export function failureMessage(source: FailureSource, kind: FailureKind, detail?: string): string {
  return `${WHAT[source]} ${HOW[kind]}${detail ? ` (${detail})` : ''}`;
}

/** The agent's tool `name` threw (its own code, not a call the session refused). */
export function toolFailure(name: string): Failure {
  return { kind: 'tool', tool: name, message: failureMessage('agent', 'tool', `tool ${name}`) };
}

/** The agent's tool `name` worked past its deadline (`timeoutMs`, TOOL_RUN_DEFAULTS) and was given up. */
export function toolTimeout(name: string): Failure {
  return { kind: 'timeout', tool: name, message: failureMessage('agent', 'timeout', `tool ${name}`) };
}

/** The agent's task `name` threw in its `start`, `next` or `timeout` (its own code). */
export function taskFailure(name: string): Failure {
  return { kind: 'task', task: name, message: failureMessage('agent', 'task', `task ${name}`) };
}

/**
 * What `runTask` rejects with when a task threw something other than an `Error` (a string, a
 * number): an `Error` whose message says it, with the task's name and what was thrown as `cause`.
 * An object is what the session reports once (a bare value has no identity to tell it by), and
 * what a log, a trace or the model reads is a sentence, not `undefined`.
 */
export class TaskError extends Error {
  override readonly name = 'TaskError';
  constructor(
    readonly task: string,
    thrown: unknown,
  ) {
    super(`task ${task} threw ${inspect(thrown, { depth: 2, breakLength: Infinity })}`, { cause: thrown });
  }
}

/** What task `name` threw, as an `Error`: itself when it is one, else wrapped in a `TaskError`. */
export function taskError(name: string, thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new TaskError(name, thrown);
}

/** The kind of a /listen or TTS socket close. */
export function kindOfClose(close: CloseInfo): FailureKind {
  switch (close.kind) {
    case 'unauthorized':
      return 'auth';
    case 'insufficient_balance':
      return 'balance';
    case 'rate_limited':
      return 'rate';
    case 'bad_parameter':
    case 'too_far_ahead':
      return 'protocol';
    default:
      return 'network';
  }
}

/**
 * The kind of any error a session meets: the service client's typed errors, the openai SDK's,
 * the model deadlines. What is left (a TypeError inside an SDK, a garbled stream) is `model`
 * for the LLM and `protocol` for the service.
 */
export function kindOfError(err: unknown, source: FailureSource): FailureKind {
  if (err instanceof ModelTimeoutError) return 'timeout';
  if (err instanceof InsufficientBalanceError) return 'balance';
  if (err instanceof AuthenticationError || err instanceof PermissionDeniedError) return 'auth';
  if (err instanceof RateLimitError) return 'rate';
  if (err instanceof TransportError) return err.kind === 'timeout' ? 'timeout' : 'network';
  if (err instanceof ProtocolError) return 'protocol';
  if (err instanceof ServiceError) return err.status >= 500 ? 'network' : 'protocol';
  if (err instanceof APIConnectionTimeoutError) return 'timeout';
  if (err instanceof APIConnectionError) return 'network';
  if (err instanceof APIError) {
    const s = err.status ?? 0;
    if (s === 401 || s === 403) return 'auth';
    if (s === 402) return 'balance';
    if (s === 429) return 'rate';
    if (s >= 500) return 'network';
    return 'model';
  }
  return source === 'llm' ? 'model' : 'protocol';
}

/** Longest service explanation of a refused request kept in a failure's message. */
const REFUSAL_MAX_CHARS = 160;
/** The service's words, cut to `REFUSAL_MAX_CHARS`. */
const clipped = (words: string): string => clip(words, REFUSAL_MAX_CHARS);

/**
 * The voice service's own words for a refusal (its envelope's `errorMessage`, the key already
 * redacted), cut short: "HTTP 429" alone did not say which limit. None for a body without the
 * service's error code (a gateway's HTML page, a bare status).
 */
function serviceWords(err: unknown): string | undefined {
  if (!(err instanceof ServiceError) || err.errorCode === undefined || !err.errorMessage) return undefined;
  return clipped(err.errorMessage);
}

/** A typed, clean failure for an error met by `source`. */
export function classifyFailure(err: unknown, source: FailureSource): Failure {
  const kind = kindOfError(err, source);
  // A request the service refused as malformed (an unknown voice_id, a rate out of range): its
  // own explanation is what the operator fixes, where "answered something it should not have"
  // sent them looking at the service.
  if (kind === 'protocol' && err instanceof ServiceError && err.status >= 400 && err.status < 500 && err.errorMessage) {
    return { kind, message: `${WHAT[source]} refused the request (HTTP ${err.status}: ${clipped(err.errorMessage)})${err.hint ? `: ${err.hint}` : ''}` };
  }
  // The model answered, with tool calls only, round after round: the limit, not a broken model.
  if (err instanceof ToolRoundsExceeded) return { kind, message: failureMessage(source, kind, `it still asked for tools after ${err.maxRounds} rounds of them in one reply: maxToolRounds`) };
  const status = err instanceof ServiceError || (err instanceof APIError && err.status) ? (err as { status: number }).status : 0;
  // A refused key says where it is set (never the key): "refused the API key" alone left the
  // operator to guess which of the process's keys and settings it was.
  if (kind === 'auth' && err instanceof ServiceError && err.hint) return { kind, message: `${failureMessage(source, kind, `HTTP ${status}`)}: ${err.hint}` };
  // A 5xx is `network` for what an operator does (wait, it passes), but the server did answer:
  // "lost its connection (HTTP 500)" sent them looking at the network.
  // An empty wallet says all there is to say (its words would repeat it).
  const words = kind === 'balance' ? undefined : serviceWords(err);
  const http = status ? `HTTP ${status}${words ? `: ${words}` : ''}` : undefined;
  if (kind === 'network' && status >= 500) return { kind, message: `${WHAT[source]} answered with a server error (${http})` };
  // No connection was made at all (refused, no route, DNS): "lost its connection" said one had been.
  if (kind === 'network' && (err instanceof TransportError || err instanceof APIConnectionError)) return { kind, message: `${WHAT[source]} could not be reached` };
  return { kind, message: failureMessage(source, kind, http) };
}

/** A typed, clean failure for a socket that closed for good. */
export function closeFailure(close: CloseInfo, source: FailureSource, giveUp = false): Failure {
  const kind = kindOfClose(close);
  const code = giveUp ? `close ${close.code}, reconnects gave up` : `close ${close.code}`;
  // The two closes a client causes say what it did: "answered something it should not have" sent
  // the operator looking at the service (seen: a console whose input device had no clock).
  if (close.kind === 'too_far_ahead') {
    return { kind, message: `${WHAT[source]} closed the stream: the caller's audio ran too far ahead of real time (${code}); a live source sends it as it is spoken, a file or a device without a clock faster` };
  }
  // The close's code and the service's reason, for the two closes that carry one worth reading.
  const said = close.reason ? `${code}: ${clipped(close.reason)}` : code;
  if (close.kind === 'bad_parameter') {
    return { kind, message: `${WHAT[source]} refused the stream's parameters (${said})` };
  }
  if (close.kind === 'unauthorized') {
    // The service's reason ("access denied: this key cannot call /listen") and where the key is set.
    return { kind, message: `${failureMessage(source, kind, said)}${close.hint ? `: ${close.hint}` : ''}` };
  }
  return { kind, message: failureMessage(source, kind, code) };
}

/**
 * The synthesis socket given up for HTTP mid-call (the call goes on, each reply over HTTP): a
 * typed failure, so `/metrics` and traces count what was only a notice's free text. Its kind
 * from what the socket said (its error or close), else from the cause (no audio: a timeout).
 */
export function fallbackFailure(n: { cause: string; reason: string; error?: unknown; close?: CloseInfo }): Failure {
  const kind = n.error !== undefined ? kindOfError(n.error, 'tts') : n.close ? kindOfClose(n.close) : n.cause === 'socket-closed' ? 'network' : 'timeout';
  return { kind, message: `speech synthesis switched to HTTP: ${n.reason}` };
}
