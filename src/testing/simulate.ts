import { collectPcm } from '../service/rest/audio-stream.ts';
import type { Agent } from '../session/agent.ts';
import { AgentSession } from '../session/agent-session.ts';
import type { Clock } from '../transport/clock.ts';
import type { CallReport, SessionEvent } from '../session/events.ts';
import { createLogger, type Logger } from '../session/logger.ts';
import type { Llm } from '../llm/types.ts';
import type { ServiceClient } from '../service/client.ts';
import { agentWithVariables } from '../session/variables.ts';
import { followLateTools } from './late-tools.ts';
import { callerSteps, type Scenario } from './scenario.ts';
import { SimulatedCaller } from './simulated-caller.ts';

/** A simulated call's result: its report, the caller (with what it recorded) and every session event. */
export interface SimulatedCall {
  report: CallReport;
  caller: SimulatedCaller;
  events: SessionEvent[];
}

/**
 * Voices the caller's lines through the service, then runs the whole call. The lower-level piece
 * under `runCall` (run-call.ts) and `hiwar demo`: it reads no environment, so the model is the
 * agent's own or its scripted intents unless `llm` says otherwise, and logs are silent unless
 * `logger` is given.
 */
export async function simulateCall(opts: {
  client: ServiceClient;
  /** Voices the caller's lines (default: `client`). */
  voiceClient?: ServiceClient;
  agent: Agent;
  scenario: Scenario;
  clock: Clock;
  /** @default the agent's `llm`, else its scripted intents */
  llm?: Llm;
  /** @default silent */
  logger?: Logger;
  /** See `SessionOptions.logKeys`. @default on when `HIWAR_LOG_KEYS=1`, else off (as a session's) */
  logKeys?: boolean;
  onEvent?: (e: SessionEvent) => void;
  /** Lets a test reach into the running session (fault drills). */
  onSession?: (s: AgentSession, caller: SimulatedCaller) => void;
  /** The longest the caller waits for the agent at one step (call time). @default 30_000 */
  maxWaitMs?: number;
  /** The call's variables (`CallInfo.parameters`), filling `{name}` in the agent's greeting and instructions. */
  variables?: Record<string, string>;
  /** How long after the call a tool given up may still answer into `events` (real ms). @default 0 */
  lateToolWaitMs?: number;
}): Promise<SimulatedCall> {
  const { client, scenario } = opts;
  // As a server does for a call: a greeting never says "{name}" (MissingVariablesError before anything starts).
  const agent = agentWithVariables(opts.agent, opts.variables ?? {});
  const voiced = new Map<string, Int16Array>();
  for (const s of scenario.steps) {
    if (!('say' in s) || voiced.has(s.say)) continue;
    const stream = await (opts.voiceClient ?? client).synthesizeStream((opts.voiceClient ?? client).config.models.tts, { voice_id: scenario.callerVoice, text: s.say, sample_rate: scenario.sampleRate });
    voiced.set(s.say, await collectPcm(stream));
  }
  // An agent that detects answering machines listens first: the simulated person speaks first.
  const caller = new SimulatedCaller(scenario.sampleRate, callerSteps(scenario), voiced, opts.clock, {
    agentSpeaksFirst: Boolean(agent.greeting) && !agent.answeringMachine?.enabled,
    maxWaitMs: opts.maxWaitMs,
    ...(opts.variables ? { call: { parameters: { ...opts.variables } } } : {}),
  });
  const session = new AgentSession({
    client,
    transport: caller,
    agent,
    clock: opts.clock,
    // Unset: each agent of a flow answers with its own model or intents.
    llm: opts.llm,
    logger: opts.logger ?? createLogger('silent'),
    // Unset: the session's own default (HIWAR_LOG_KEYS), as `hiwar demo` and `runCall` document it.
    logKeys: opts.logKeys,
  });
  const events: SessionEvent[] = [];
  session.events$.subscribe((e) => {
    events.push(e);
    opts.onEvent?.(e);
  });
  const late = followLateTools(session, events, opts.onEvent);
  opts.onSession?.(session, caller);
  const report = await session.run();
  caller.callerHangsUp();
  await late.settle(opts.lateToolWaitMs ?? 0);
  return { report, caller, events };
}
