import type { Llm } from '../llm/types.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Agent } from '../session/agent.ts';
import { AgentSession } from '../session/agent-session.ts';
import type { Clock } from '../session/clock.ts';
import type { Logger } from '../session/logger.ts';
import type { Transport } from '../transport/types.ts';
import type { SessionFactory } from './calls.ts';

/**
 * The one place the server builds an `AgentSession` for a call: a fresh session per transport
 * (its own sockets, history and model stream), sharing only the service client and the agent.
 */
export function agentSessions(o: { client: ServiceClient; agent: Agent; logger: Logger; clock?: Clock; llm?: Llm }): SessionFactory {
  return (transport: Transport) =>
    new AgentSession({
      client: o.client,
      // The session still types its transport with the pre-contract interface; the contract's
      // Transport is a superset of it at run time.
      transport: transport as unknown as ConstructorParameters<typeof AgentSession>[0]['transport'],
      agent: o.agent,
      clock: o.clock,
      llm: o.llm,
      logger: o.logger.child({ call: transport.call.callId, provider: transport.call.provider }),
    });
}
