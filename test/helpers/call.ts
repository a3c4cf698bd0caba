import callCentre from '../../agents/call-centre/index.ts';
import { simulateCall, type SimulatedCall } from '../../src/cli/simulate.ts';
import { scenarioSchema } from '../../src/cli/scenario.ts';
import type { Llm } from '../../src/llm/types.ts';
import type { Agent } from '../../src/session/agent.ts';
import type { AgentSession } from '../../src/session/agent-session.ts';
import { ScaledClock } from '../../src/transport/clock.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { ServiceClient } from '../../src/service/client.ts';
import type { SimulatedCaller } from '../../transports/local/simulated-caller.ts';

/** Scenario calls run faster than real time: the sandbox times speech on audio, not the wall. */
export const SPEED = 3;

export function call(
  client: ServiceClient,
  steps: unknown[],
  opts: { agent?: Partial<Agent>; llm?: Llm; voiceClient?: ServiceClient; onSession?: (s: AgentSession, c: SimulatedCaller) => void } = {},
): Promise<SimulatedCall> {
  return simulateCall({
    client,
    voiceClient: opts.voiceClient,
    agent: { ...callCentre, ...opts.agent },
    scenario: scenarioSchema.parse({ steps }),
    clock: new ScaledClock(SPEED),
    llm: opts.llm,
    logger: createLogger('silent'),
    onSession: opts.onSession,
  });
}

export const agentTurns = (c: SimulatedCall) => c.report.turns.filter((t) => t.role === 'agent');
export const userTurns = (c: SimulatedCall) => c.report.turns.filter((t) => t.role === 'user').map((t) => t.text);
