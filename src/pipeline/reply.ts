import { limitSlowStart, noticeSlowStart } from '../llm/deadlines.ts';
import { streamReply, type ReplyEvent as StreamEvent } from '../llm/run.ts';
import { parsedArguments, type LateToolResult, type ToolOutcome } from '../llm/tools.ts';
import type { ToolFiller } from '../llm/tool-filler.ts';
import type { ChatMessage, Llm, Tool, ToolContext } from '../llm/types.ts';
import { SentenceChunker, chunkText, type ChunkerOptions } from '../text/chunker.ts';
import { realClock, type Clock } from '../transport/clock.ts';
import type { CallControl, TransportOutput } from '../transport/types.ts';
import { ReplyPlayout, type PlayoutOptions, type SpeechSink } from './playout.ts';
import { SpeakerFatal, type SpeechChunk } from './speaker.ts';
import type { SpokenForm } from './spoken.ts';
import type { UserTurn } from './turns.ts';
import { withDefaults } from '../options.ts';
import { MODEL_ERROR_LINE } from '../llm/recovery-line.ts';

/** How a reply is made and what it does when the model fails or a tool ends the call. */
export interface ReplyOptions {
  /**
   * Said when the model fails mid-reply (the call goes on).
   * @default 'عذرًا، حدث خلل مؤقت. هل يمكنك إعادة طلبك؟'
   */
  modelErrorLine?: string;
  /**
   * Tools after whose reply the call is to end (`endCall` in the outcome).
   * @default []
   */
  endCallAfterTools?: string[];
  /**
   * Model calls with tools, at most, in one reply.
   * @default 3
   */
  maxToolRounds?: number;
  /**
   * Said while the model is slow to start answering: no sentence to voice and no tool call after
   * `fillerAfterMs`, whether or not its first token came. None when unset.
   * @default undefined
   */
  fillerLine?: string;
  /**
   * Real milliseconds without a first sentence (or tool call) before the filler line is said.
   * @default 2000
   */
  fillerAfterMs?: number;
  /**
   * Real milliseconds from the model's first token without a first sentence (or a tool call),
   * filler or not, before the model is given up: the caller hears `modelErrorLine` and an
   * `llm_error` (a ModelTimeoutError) is told. 0 = no limit.
   * @default 6000
   */
  firstSentenceMs?: number;
  /**
   * Said once while tools work longer than its `afterMs` (see TOOL_FILLER_DEFAULTS); `false`: never.
   * @default TOOL_FILLER_DEFAULTS
   */
  toolFiller?: ToolFiller | false;
  /** How model text is cut for synthesis (see `ChunkerOptions`). */
  chunker?: ChunkerOptions;
  /** How far audio runs ahead of what was heard (see `PlayoutOptions`). */
  playout?: PlayoutOptions;
}

/** Defaults of the reply stage: the line said when the model fails, the tools that end the call. */
export const REPLY_DEFAULTS = {
  modelErrorLine: MODEL_ERROR_LINE,
  endCallAfterTools: [] as string[],
  maxToolRounds: 3,
  fillerAfterMs: 2000,
  firstSentenceMs: 6000,
} satisfies ReplyOptions;

/** The voice the reply stage speaks through (the `Speaker`; a fake in unit tests). */
export interface Voice {
  /** Voices chunks into `sink` as they come; aborting `signal` stops it and drops its pending audio. */
  speak(chunks: AsyncIterable<SpeechChunk>, sink: SpeechSink, signal: AbortSignal, onFirstAudio?: (at: number) => void): Promise<void>;
}

/** What a reply reports while it runs. */
export type ReplyStageEvent =
  /** `line`: the apology after a model failure (`modelErrorLine`), a fixed line, not the model's words. */
  | { type: 'agent_chunk'; text: string; line?: 'model_error' }
  /** A tool call of the model starts, before it runs: `args` as parsed (`undefined`: not JSON); `callId` the model's id for the call, when it gave one. */
  | { type: 'tool_started'; name: string; callId?: string; args: unknown }
  | { type: 'tool'; outcome: ToolOutcome }
  /** A tool given up (`reason`) answered `lateMs` real milliseconds later, after its `tool` event: what it gave was dropped. */
  | { type: 'tool_late'; name: string; callId?: string; lateMs: number; reason: LateToolResult['reason']; failed: boolean }
  /** `error` is the raw cause, for classifying (`classifyFailure`) and the log. */
  | { type: 'llm_error'; message: string; error: unknown }
  | { type: 'tts_error'; message: string; error: unknown }
  /** The first audio of the reply left the transport. */
  | { type: 'speaking' };

/** What to reply to: a caller turn, a fixed line (the greeting, `say`), or neither (a model reply). */
export interface ReplyRequest {
  turn?: UserTurn;
  text?: string;
  /** Extra instructions for this model reply only (not kept in the history). */
  instructions?: string;
  /** This reply's events (default: the stage's `events`): a task's line may run inside a reply, each tells its own. */
  events?: (e: ReplyStageEvent) => void;
}

/** Clock times of a reply's milestones (0 / undefined when not reached). */
export interface ReplyTimes {
  firstToken: number;
  firstChunk: number;
  firstAudio: number;
  /** The first audio left the transport (its playback `sent` moved). */
  firstSent: number | undefined;
}

export interface ReplyOutcome {
  text: string;
  heard: string;
  interrupted: boolean;
  /** A tool in `endCallAfterTools` ran and the reply was not cut off. */
  endCall: boolean;
  /** The service refused to speak (wallet, access). */
  fatal?: SpeakerFatal;
  /** The reply was the apology after a model failure, with nothing the model wrote before it. */
  line?: 'model_error';
  times: ReplyTimes;
}

/** The conversation a reply reads and adds to (the session's `ChatHistory`). */
export interface ReplyHistory {
  addUser(text: string): void;
  addAssistant(text: string, interrupted?: boolean): void;
  addToolRound(messages: ChatMessage[]): void;
  messages(): ChatMessage[];
}

export interface ReplyDeps {
  llm: Llm;
  voice: Voice;
  output: TransportOutput;
  clock: Clock;
  history: ReplyHistory;
  spoken: SpokenForm;
  tools: Tool[];
  call?: CallControl;
  /** Given to tools as `ctx.session`. */
  session?: ToolContext['session'];
  /** Rewrites each piece of text before its spoken form (`SessionStages.transformText`). */
  transform?: (text: string) => string;
  events: (e: ReplyStageEvent) => void;
  /**
   * The clock of the waits on the model (the filler, the first sentence's deadline): real time
   * by default, as a model's latency does not run faster with a simulated clock.
   */
  modelClock?: Clock;
}

/**
 * One reply, start to end: model deltas → chunker → spoken form → voice → playout. Aborting
 * the signal (barge-in, a newer turn, the end of the call) stops the model, the voice (which
 * clears what the service still generates) and the audio, and the history keeps only what the
 * caller heard.
 */
export class ReplyStage {
  private readonly o: typeof REPLY_DEFAULTS & ReplyOptions;
  /** The playout of the reply in flight (for pause and resume on a barge-in). */
  current: ReplyPlayout | undefined;

  constructor(
    private readonly deps: ReplyDeps,
    opts: ReplyOptions = {},
  ) {
    this.o = withDefaults(REPLY_DEFAULTS, opts);
  }

  /** Runs one reply (model, tools, speech) until it ends or `signal` aborts it. */
  async run(req: ReplyRequest, signal: AbortSignal): Promise<ReplyOutcome> {
    const { deps } = this;
    const tell = req.events ?? deps.events;
    if (req.turn) deps.history.addUser(req.turn.text);
    // The model's request goes out first: the playout and the voice are set up while it travels.
    const messages: ChatMessage[] = [...deps.history.messages(), ...(req.instructions ? [{ role: 'system' as const, content: req.instructions }] : [])];
    // The model's own signal: its first sentence's deadline gives it up without ending the reply.
    const model = req.text === undefined ? new AbortController() : undefined;
    const onAbort = () => model?.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const answer =
      model
        ? startNow(streamReply(deps.llm, messages, deps.tools, model.signal, { maxRounds: this.o.maxToolRounds, call: deps.call, session: deps.session, toolFiller: this.o.toolFiller, onLateResult: (l) => tell(lateEvent(l)) }))
        : undefined;
    // node:http writes a request on a kept-alive connection in a process.nextTick queued by
    // `request()`; the rest of the setup waits for a tick queued after it, so the request is on
    // the wire first. (An `await` alone did not: a turn is decided inside a promise callback, and
    // Node runs ticks only once the microtasks are done, so the playout and the voice were set up
    // before the request left.)
    if (answer) await afterPendingTicks();
    const playout = new ReplyPlayout(deps.output, deps.clock, deps.spoken.normalize, this.o.playout);
    // A task's line spoken while a tool of this reply works: the reply is current again after it.
    const outer = this.current;
    this.current = playout;
    const times: ReplyTimes = { firstToken: 0, firstChunk: 0, firstAudio: 0, firstSent: undefined };
    let endCall = false;
    const said = { modelText: false, apology: false };
    const chunks = this.chunks(req, answer, signal, times, () => (endCall = true), tell, (reason) => model?.abort(reason), said);
    let fatal: SpeakerFatal | undefined;
    const speaking = deps.voice
      .speak(chunks, playout, signal, (at) => (times.firstAudio ||= at))
      .catch((err) => {
        if (err instanceof SpeakerFatal) fatal = err;
        else if (!signal.aborted) tell({ type: 'tts_error', message: String(err?.message ?? err), error: err });
      })
      .finally(() => playout.end());
    playout.onFirstSent((at) => {
      times.firstSent = at;
      tell({ type: 'speaking' });
    });
    const aborted = new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r(), { once: true })));
    await Promise.race([Promise.all([speaking, playout.finished]), aborted]);
    const interrupted = signal.aborted;
    const heard = interrupted ? await playout.stop() : playout.fullText();
    await speaking;
    const text = playout.fullText();
    deps.history.addAssistant(heard, interrupted);
    signal.removeEventListener('abort', onAbort);
    if (this.current === playout) this.current = outer;
    return { text, heard, interrupted, endCall: endCall && !interrupted, fatal, ...(said.apology && !said.modelText ? { line: 'model_error' as const } : {}), times };
  }

  /** The reply's text as chunks with their spoken form, as the model writes it. */
  private async *chunks(
    req: ReplyRequest,
    answer: AsyncIterable<StreamEvent> | undefined,
    signal: AbortSignal,
    times: ReplyTimes,
    onEndCall: () => void,
    tell: (e: ReplyStageEvent) => void,
    giveUp: (reason: Error) => void,
    said: { modelText: boolean; apology: boolean },
  ): AsyncGenerator<SpeechChunk> {
    const { deps } = this;
    let spoke = false;
    const emit = async (text: string, line?: 'model_error'): Promise<SpeechChunk> => {
      times.firstChunk ||= deps.clock.now();
      spoke = true;
      tell({ type: 'agent_chunk', text, ...(line ? { line } : {}) });
      return { text, spoken: await deps.spoken.speak(deps.transform ? deps.transform(text) : text, signal) };
    };
    if (!answer) {
      for (const c of chunkText(req.text ?? '', this.o.chunker)) yield await emit(c);
      return;
    }
    const chunker = new SentenceChunker(this.o.chunker);
    let toolFillerSaid = false;
    let toolStarted = false;
    let sentence = false;
    try {
      // A slow model: the filler line fills the silence while it thinks, until the reply's first
      // sentence goes to the voice (a model that writes a word and then crawls is as slow to the
      // caller as one that writes nothing), or a tool starts (its own filler covers its work).
      // Without a first sentence of its own `firstSentenceMs` after its first token (filler or not),
      // the model is given up as one that never answers: the idle deadline restarts with every
      // token, so a model writing a word every few seconds held the caller in silence without limit.
      const clock = deps.modelClock ?? realClock();
      const filler = this.o.fillerLine;
      const limited = limitSlowStart(answer, this.o.firstSentenceMs, clock, () => sentence || toolStarted, giveUp);
      const events = filler ? noticeSlowStart(limited, this.o.fillerAfterMs, clock, () => spoke || toolStarted) : limited;
      for await (const e of events) {
        if (e.type === 'slow') {
          // Said before the model's first sentence (its first token may have come): the reply's
          // start for the figures when no token had, so its parts stay in order and add up (the
          // first sentence's time was negative after a filler).
          times.firstToken ||= deps.clock.now();
          if (filler) yield await emit(filler);
        } else if (e.type === 'text') {
          times.firstToken ||= deps.clock.now();
          for (const c of chunker.push(e.delta)) {
            sentence = true;
            said.modelText = true;
            yield await emit(c);
          }
        } else if (e.type === 'tool_started') {
          // A tool call is the model's first output when it writes no text first; the tool's time
          // is then the first sentence's (a filler said meanwhile comes after it, never before).
          times.firstToken ||= deps.clock.now();
          toolStarted = true;
          tell({ type: 'tool_started', name: e.name, ...(e.id ? { callId: e.id } : {}), args: parsedArguments(e) });
          // The model's text of this round is complete: voiced now, while the tool works, not
          // held until the next round's text (the caller heard a gap as long as the tool and
          // the next model request).
          const rest = chunker.flush();
          if (rest) {
            said.modelText = true;
            yield await emit(rest);
          }
        } else if (e.type === 'tool_slow') {
          // Once per reply: a second slow round is still the same wait to the caller.
          if (!toolFillerSaid) yield await emit(e.line);
          toolFillerSaid = true;
        } else if (e.type === 'tool_finished') {
          tell({ type: 'tool', outcome: e.outcome });
          if (this.o.endCallAfterTools.includes(e.outcome.call.name)) onEndCall();
        } else if (e.type === 'messages') deps.history.addToolRound(e.added);
      }
    } catch (err) {
      if (signal.aborted) return;
      // The model failed: the caller hears an apology instead of silence, and the call goes on.
      // A failure before any token is the model's answer for the figures, as a filler is: the
      // wait is the model's part, the apology its first sentence, and the parts still add up.
      times.firstToken ||= deps.clock.now();
      tell({ type: 'llm_error', message: `model failed: ${(err as Error).message}`, error: err });
      for (const rest of chunker.end()) {
        said.modelText = true;
        yield await emit(rest);
      }
      said.apology = true;
      yield await emit(this.o.modelErrorLine, 'model_error');
      return;
    }
    for (const rest of chunker.end()) yield await emit(rest);
  }
}

/** The event of a given-up tool's late answer. */
function lateEvent({ call, lateMs, reason, failed }: LateToolResult): ReplyStageEvent {
  return { type: 'tool_late', name: call.name, ...(call.id ? { callId: call.id } : {}), lateMs, reason, failed };
}

/** Resolves after the process.nextTick callbacks queued so far (a microtask where there is no `process`). */
function afterPendingTicks(): Promise<void> {
  const tick = globalThis.process?.nextTick;
  return new Promise((resolve) => (tick ? tick(resolve) : queueMicrotask(resolve)));
}

/**
 * Starts `source` now (its first `next()`), so the work it does before its first await (the
 * model's request) is not held behind what its consumer sets up first. An early failure waits
 * for the consumer, which reads it from the same promise.
 */
function startNow<T>(source: AsyncIterable<T>): AsyncIterable<T> {
  const it = source[Symbol.asyncIterator]();
  let first: Promise<IteratorResult<T>> | undefined = it.next();
  first.catch(() => {});
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const f = first;
        first = undefined;
        return f ?? it.next();
      },
      return: (value?: unknown) => it.return?.(value) ?? Promise.resolve({ done: true as const, value: undefined as T }),
    }),
  };
}
