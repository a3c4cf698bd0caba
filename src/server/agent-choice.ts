import type { Llm } from '../llm/types.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Agent } from '../session/agent.ts';
import { agentProblem } from '../session/check-agent.ts';
import type { Logger } from '../session/logger.ts';
import { agentWithVariables } from '../session/variables.ts';
import type { Clock } from '../transport/clock.ts';
import type { CallInfo, Transport } from '../transport/types.ts';
import { agentSessions } from './agent-sessions.ts';
import type { SessionFactory } from './calls.ts';
import type { ServerEvent } from './create.ts';
import type { ModelProbes } from './model-probes.ts';
import { CallRefused } from './types.ts';

/** What `agentChoice` needs of `createAgentServer`'s options and start-up. */
export interface AgentChoiceOptions {
  agent?: Agent;
  agentFor?: (call: CallInfo) => Agent | undefined | Promise<Agent | undefined>;
  llm?: Llm;
  fallbackLlm?: Llm;
  clock?: Clock;
  client: ServiceClient;
  /** Teaches the embedded sandbox an agent's phrases before its first call. */
  teach?: (agent: Agent, callId: string) => Promise<void>;
  logger: Logger;
  /** The models `/readyz` probes: a chosen agent's joins them. */
  models?: ModelProbes;
  emit(e: Extract<ServerEvent, { type: 'call_started' | 'call_refused' | 'hook_failed' }>): void;
}

/**
 * Which agent's session each call gets: `agentFor`'s choice, else `agent`, checked as an Agent and
 * filled with the call's variables; a call with none is refused (`CallRefused`, a `call_refused`
 * event), never failed. `agentOf` gives the agent a call was given (for its out-of-service line).
 */
export function agentChoice(o: AgentChoiceOptions): { sessions: SessionFactory; agentOf(transport: Transport): Agent | undefined } {
  const { logger, emit } = o;
  // Weak: an agent filled with one call's variables is its own object, dropped with the call.
  const sessionsFor = new WeakMap<Agent, ReturnType<typeof agentSessions>>();
  const sessionsOf = (agent: Agent) => {
    let f = sessionsFor.get(agent);
    // The fallback only where the agent has none: an agent's own model is never overridden by it.
    const llm = o.llm ?? (agent.llm ? undefined : o.fallbackLlm);
    if (!f) sessionsFor.set(agent, (f = agentSessions({ client: o.client, agent, logger, clock: o.clock, llm, teach: o.teach })));
    return f;
  };
  // The agent each call was given, for its out-of-service line when its session cannot be made.
  const agentOfCall = new WeakMap<Transport, Agent>();
  const sessions: SessionFactory = async (transport) => {
    const call = transport.call;
    let agent: Agent | undefined;
    try {
      agent = (await o.agentFor?.(call)) ?? o.agent;
    } catch (err) {
      const error = (err as Error)?.message ?? String(err);
      logger.error({ call: call.callId, err: error }, 'agentFor failed; the call is refused');
      emit({ type: 'hook_failed', hook: 'agentFor', call, error });
      emit({ type: 'call_refused', call, reason: `agentFor failed: ${error}` });
      throw new CallRefused('no agent');
    }
    if (!agent?.name) {
      emit({ type: 'call_refused', call, reason: 'no agent for this call' });
      throw new CallRefused('no agent');
    }
    // An agent chosen per call is checked as the fixed one is at start (it failed mid-call otherwise).
    const wrong = agent === o.agent ? undefined : agentProblem(agent);
    if (wrong) {
      logger.error({ call: call.callId, agent: agent.name, err: wrong }, 'agentFor gave something that is not an Agent; the call is refused');
      emit({ type: 'call_refused', call, reason: `agentFor gave no Agent (${wrong})` });
      throw new CallRefused('no agent');
    }
    const picked = agent;
    agentOfCall.set(transport, picked);
    // Its model's endpoint is probed by /readyz from now on (a per-call agent's model was unknown at start).
    o.models?.add(o.llm ?? picked.llm ?? o.fallbackLlm);
    try {
      // `{name}` in the greeting and instructions, from the call's parameters (an outbound call's variables).
      agent = agentWithVariables(agent, call.parameters ?? {});
    } catch (err) {
      const reason = (err as Error).message;
      logger.warn({ call: call.callId, err: reason }, 'call refused: the agent needs variables the call does not carry');
      emit({ type: 'call_refused', call, reason });
      throw new CallRefused('missing variables');
    }
    // Before the call's /listen opens: the embedded sandbox hears only phrases it was taught, and
    // an agent chosen per call may have phrases it has not been taught yet (voiced once per phrase).
    await o.teach?.(picked, call.callId);
    emit({ type: 'call_started', call, agent: agent.name });
    return sessionsOf(agent)(transport);
  };
  return { sessions, agentOf: (t) => agentOfCall.get(t) };
}
