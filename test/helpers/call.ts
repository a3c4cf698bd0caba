import callCentre from '../../agents/call-centre/index.ts';
import { simulateCall, type SimulatedCall } from '../../src/cli/simulate.ts';
import { scenarioSchema } from '../../src/cli/scenario.ts';
import type { Llm } from '../../src/llm/types.ts';
import type { Agent } from '../../src/session/agent.ts';
import type { AgentSession } from '../../src/session/agent-session.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { ServiceClient } from '../../src/service/client.ts';
import type { SimulatedCaller } from '../../transports/local/simulated-caller.ts';
import { SteadyScaledClock } from './steady-clock.ts';

/** Scenario calls run faster than real time: the sandbox times speech on audio, not the wall. */
export const SPEED = 3;

export function call(
  client: ServiceClient,
  steps: unknown[],
  opts: { agent?: Partial<Agent>; llm?: Llm; voiceClient?: ServiceClient; onSession?: (s: AgentSession, c: SimulatedCaller) => void; maxWaitMs?: number } = {},
): Promise<SimulatedCall> {
  // Stall-free: on a loaded machine the process's stalls do not count as call time (steady-clock.ts).
  const clock = new SteadyScaledClock(SPEED);
  return simulateCall({
    client,
    voiceClient: opts.voiceClient,
    agent: { ...callCentre, ...opts.agent },
    scenario: scenarioSchema.parse({ steps }),
    clock,
    llm: opts.llm,
    logger: createLogger('silent'),
    onSession: opts.onSession,
    maxWaitMs: opts.maxWaitMs,
  }).finally(() => clock.stop());
}

export const agentTurns = (c: SimulatedCall) => c.report.turns.filter((t) => t.role === 'agent');
export const userTurns = (c: SimulatedCall) => c.report.turns.filter((t) => t.role === 'user').map((t) => t.text);

/**
 * For `onSession`: the caller hangs up once the session has emitted an event that `proves` the
 * test's point (a turn heard to its end), instead of sitting out the rest of a long patient wait.
 * The wait stays the ceiling, so a slow machine gets all of it; a quick one none of the rest.
 */
export const hangUpOnce = (proves: (e: SessionEvent) => boolean) => (session: AgentSession, caller: SimulatedCaller) => {
  const sub = session.events$.subscribe((e) => {
    if (!proves(e)) return;
    sub.unsubscribe();
    // A moment later: the event's own handlers (and the test's event list) see the call still up.
    setTimeout(() => caller.callerHangsUp(), 100).unref();
  });
};
