import type { Llm } from '../llm/types.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Agent } from '../session/agent.ts';
import { AgentSession } from '../session/agent-session.ts';
import type { Clock } from '../transport/clock.ts';
import type { Logger } from '../session/logger.ts';
import type { Transport } from '../transport/types.ts';

/**
 * The one place the server builds an `AgentSession` for a call: a fresh session per transport
 * (its own sockets, history and model stream), sharing only the service client and the agent.
 */
export function agentSessions(o: { client: ServiceClient; agent: Agent; logger: Logger; clock?: Clock; llm?: Llm; teach?: (agent: Agent, callId: string) => Promise<void> }): (transport: Transport) => AgentSession {
  const teach = o.teach;
  return (transport: Transport) =>
    new AgentSession({
      client: o.client,
      transport,
      agent: o.agent,
      clock: o.clock,
      llm: o.llm,
      // An embedded sandbox learns the phrases of an agent a handoff reaches that no `handoffs` listed.
      ...(teach ? { teach: (agent: Agent) => teach(agent, transport.call.callId) } : {}),
      logger: o.logger.child({ call: transport.call.callId, provider: transport.call.provider }),
    });
}
