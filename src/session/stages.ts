import { DEFAULT_MODEL_DEADLINES, withDeadlines } from '../llm/deadlines.ts';
import { ScriptedLlm } from '../llm/scripted.ts';
import type { Llm } from '../llm/types.ts';
import { ReplyStage, type ReplyDeps } from '../pipeline/reply.ts';
import { Speaker } from '../pipeline/speaker.ts';
import { SttStage } from '../pipeline/stt.ts';
import { InterruptionPolicy } from '../pipeline/interruption.ts';
import { TURN_DEFAULTS, TurnDetector } from '../pipeline/turns.ts';
import type { TurnContext } from '../pipeline/turn-policy.ts';
import type { ServiceClient } from '../service/client.ts';
import { realClock, type Clock } from '../transport/clock.ts';
import type { Agent } from './agent.ts';
import { fallbackFailure, type Failure, type FailureSource } from './failure.ts';
import type { AgentVoice, BargeInPolicy, Recognizer, SessionStages, TurnPolicy } from './stage-types.ts';

/**
 * The model when the session is given none: the agent's own, else its scripted intents. (The
 * CLI picks an OpenAI-compatible model from the environment: `src/cli/llm.ts`.)
 */
export function defaultLlm(agent: Agent): Llm {
  if (agent.llm) return agent.llm;
  return new ScriptedLlm({
    intents: agent.intents ?? [],
    fallback: agent.didNotUnderstand ?? 'عذرًا، لم أفهم. هل يمكنك الإعادة؟',
    ...(agent.modelErrorLine ? { toolErrorLine: agent.modelErrorLine } : {}),
  });
}

/**
 * The endpointing /listen is opened with: with a turn policy on, a short one (`turn.listenEndpointingMs`,
 * or `stt.endpointing` when lower), so that a complete turn is heard as such early; the
 * detector waits out the rest of the ordinary silence for turns without a cue (turns.ts).
 */
export function listenEndpointing(agent: Agent): number | undefined {
  const own = agent.stt?.endpointing;
  if (agent.turn?.policy === false) return own;
  const short = agent.turn?.listenEndpointingMs ?? TURN_DEFAULTS.listenEndpointingMs;
  return own === undefined ? short : Math.min(own, short);
}

/** The recognizer of the call, set by the first agent (the caller's audio does not change with a handoff). */
export function buildStt(agent: Agent, client: ServiceClient, inputRate: number, clock: Clock): Recognizer {
  const s = agent.stt;
  const sampleRate = s?.sampleRate ?? (inputRate <= 8000 ? 8000 : 16000);
  return new SttStage(
    client,
    inputRate,
    { sample_rate: sampleRate, model: s?.model, endpointing: listenEndpointing(agent), hotwords: s?.hotwords, interim_results: true, liveness: s?.liveness, uplinkFrameMs: s?.uplinkFrameMs, uplinkQuietFrameMs: s?.uplinkQuietFrameMs },
    clock,
  );
}

/** The stages that follow the agent speaking: a handoff builds them anew for the next agent. */
export interface AgentStages {
  agent: Agent;
  /** The model, with the agent's deadlines. */
  llm: Llm;
  /** The model as given (no deadlines): what a handoff summary is asked of, unless scripted. */
  rawLlm: Llm;
  turns: TurnPolicy;
  interruption: BargeInPolicy;
  speaker: AgentVoice;
  replies: ReplyStage;
}

/** What building the stages needs from the session. */
export interface StageContext {
  client: ServiceClient;
  clock: Clock;
  /** The session's model, when it was given one: every agent of the flow uses it (see `buildStages`). */
  llm?: Llm;
  outputRate: number;
  /** Stages given by the user instead of the defaults. */
  stages?: SessionStages;
  notice(message: string, logged?: boolean): void;
  /** A failure the call goes on through: a typed `error` event (counted, traced) and a warn line. */
  failed(source: FailureSource, failure: Failure, fatal: boolean): void;
  /** Endpointing of the call's /listen socket (undefined: a recognizer of the user's, not known). */
  listenEndpointingMs?: number;
  /** What the turn policy judges with besides the words: the task's expectation, the agent's last line. */
  turnContext?: () => TurnContext;
  /** The reply stage's shared parts (history, output, spoken form, events, controls). */
  reply: Omit<ReplyDeps, 'llm' | 'voice' | 'tools'>;
}

/**
 * Builds the stages for `agent`: the user's (`ctx.stages`) where given, else today's. `previous` (a handoff) keeps its voice socket when the voice is
 * the same, and its turn and interruption state when those settings are.
 */
export function buildStages(agent: Agent, ctx: StageContext, previous?: AgentStages): AgentStages {
  const deadlines = { ...DEFAULT_MODEL_DEADLINES, ...agent.modelDeadlines };
  // The session's model serves every agent of a flow; a scripted one is the first agent's own
  // intents, so the next agents answer from theirs.
  const rawLlm = !previous ? (ctx.llm ?? defaultLlm(agent)) : (agent.llm ?? (!ctx.llm || ctx.llm instanceof ScriptedLlm ? defaultLlm(agent) : ctx.llm));
  // Real time: a model's latency does not run faster with a simulated clock.
  const llm = withDeadlines(rawLlm, deadlines, realClock());
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const own = ctx.stages ?? {};
  const speaker =
    previous && same(previous.agent.voice, agent.voice)
      ? previous.speaker
      : (own.voice?.(agent, ctx.outputRate) ??
        new Speaker(ctx.client, { ...agent.voice, sampleRate: ctx.outputRate }, ctx.clock, (n) => {
          if (n.type !== 'fallback') return;
          // Typed too: a socket that keeps failing shows in hiwar_errors_total and the trace. One
          // log line, the failure's (warn).
          const failure = fallbackFailure(n);
          ctx.notice(failure.message, false);
          ctx.failed('tts', failure, false);
        }));
  const turns = previous && same(previous.agent.turn, agent.turn) ? previous.turns : (own.turns?.(agent) ?? turnDetector(agent, ctx));
  const interruption =
    previous && same(previous.agent.interruption, agent.interruption) ? previous.interruption : (own.interruption?.(agent) ?? new InterruptionPolicy(agent.interruption));
  const replies = new ReplyStage(
    { ...ctx.reply, llm, voice: speaker, tools: agent.tools ?? [], ...(own.transformText ? { transform: own.transformText } : {}) },
    {
      modelErrorLine: agent.modelErrorLine,
      endCallAfterTools: agent.endCallAfterTools,
      fillerLine: agent.fillerLine,
      fillerAfterMs: deadlines.fillerAfterMs,
      firstSentenceMs: deadlines.firstSentenceMs,
      toolFiller: agent.toolFiller,
    },
  );
  return { agent, llm, rawLlm, turns, interruption, speaker, replies };
}

/** The default turn detector of `agent`, told the socket's endpointing and the call's context. */
function turnDetector(agent: Agent, ctx: StageContext): TurnDetector {
  return new TurnDetector(agent.turn, {
    endpointingMs: ctx.listenEndpointingMs,
    silenceMs: agent.stt?.endpointing,
    context: ctx.turnContext,
    onError: (err) => ctx.notice(`turn policy failed (the turn ends after the ordinary silence): ${(err as Error)?.message ?? String(err)}`),
  });
}
