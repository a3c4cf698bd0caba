import type { Llm } from '../llm/types.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Clock } from '../transport/clock.ts';
import type { Transport } from '../transport/types.ts';
import type { Agent } from './agent.ts';
import type { Logger } from './logger.ts';
import type { SessionStages } from './stage-types.ts';

/** What an `AgentSession` runs on: the service client, the call's transport and the agent (and optionally a model, clock and logger). */
export interface SessionOptions {
  client: ServiceClient;
  transport: Transport;
  /** The agent that takes the call (others may follow by handoff). */
  agent: Agent;
  clock?: Clock;
  /** The model of every agent of the call; default each agent's `llm`, else its scripted intents. */
  llm?: Llm;
  logger?: Logger;
  /**
   * The debug log shows the keys the caller presses, the long numbers they say and what tasks
   * collected (off: a key press is logged without its key, a keyed turn without its text, a spoken
   * turn with its runs of 4 digits or more as `[N digits]`, a task's result without its value: a
   * PIN or a card number must not reach a log). Default: on when `HIWAR_LOG_KEYS=1`, else off.
   */
  logKeys?: boolean;
  /** Your own recognizer, voice, turn and interruption policies or text transform (see `SessionStages`). */
  stages?: SessionStages;
  /**
   * Teaches an embedded sandbox's recognizer the phrases of an agent the call is handed to that no
   * agent's `handoffs` lists (`createAgentServer` gives its sandbox's) while the call goes on; that
   * agent's `onEnter` waits for it. Without it such a handoff is only warned of (a `handoff_unlisted` event and a log line).
   */
  teach?: (agent: Agent) => Promise<void>;
}
