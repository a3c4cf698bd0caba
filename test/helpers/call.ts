import callCentre from '../../agents/call-centre/index.ts';
import { simulateCall, type SimulatedCall } from '../../src/testing/simulate.ts';
import { scenarioSchema } from '../../src/testing/scenario.ts';
import type { Llm, LlmEvent, LlmRequest } from '../../src/llm/types.ts';
import type { Agent } from '../../src/session/agent.ts';
import type { AgentSession } from '../../src/session/agent-session.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { createLogger, type Logger } from '../../src/session/logger.ts';
import type { ServiceClient } from '../../src/service/client.ts';
import type { Clock } from '../../src/transport/clock.ts';
import type { SimulatedCaller } from '../../src/testing/simulated-caller.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';

/** Scenario calls run faster than real time: the sandbox times speech on audio, not the wall. */
export const SPEED = 3;

export function call(
  client: ServiceClient,
  steps: unknown[],
  opts: { agent?: Partial<Agent>; llm?: Llm; logger?: Logger; logKeys?: boolean; voiceClient?: ServiceClient; onSession?: (s: AgentSession, c: SimulatedCaller) => void; maxWaitMs?: number; clock?: SteadyScaledClock; ceilingMs?: number } = {},
): Promise<SimulatedCall> {
  // Stall-free: on a loaded machine the process's stalls do not count as call time (steady-clock.ts).
  const clock = opts.clock ?? new SteadyScaledClock(SPEED);
  // A ceiling in call time, where a test would set a wall-time limit: a call that never ends
  // fails at it however fast the machine, and a starved run is never failed for being slow.
  const stop = new AbortController();
  const ceiling =
    opts.ceilingMs === undefined
      ? new Promise<never>(() => {})
      : clock.sleep(opts.ceilingMs, stop.signal).then(
          () => Promise.reject(new Error(`the call did not end within ${opts.ceilingMs! / 1000} s of call time`)),
          () => new Promise<never>(() => {}),
        );
  const ended = simulateCall({
    client,
    voiceClient: opts.voiceClient,
    agent: { ...callCentre, ...opts.agent },
    scenario: scenarioSchema.parse({ steps }),
    clock,
    llm: opts.llm,
    logger: opts.logger ?? createLogger('silent'),
    // Off unless a test asks: the suite's debug lines do not depend on a developer's HIWAR_LOG_KEYS.
    logKeys: opts.logKeys ?? false,
    onSession: opts.onSession,
    maxWaitMs: opts.maxWaitMs,
  });
  return Promise.race([ended, ceiling]).finally(() => {
    stop.abort();
    clock.stop();
  });
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

/**
 * `llm` (given no delays of its own) at a model's pace on the call's clock: `firstMs` before its
 * first event, `tokenMs` after each piece of text, in call time. A scripted model's own delays
 * are wall time; on the stall-free clock (steady-clock.ts) stalls would make it look faster in
 * call time the more the machine is loaded, and a barge-in timed in call time would come after a
 * reply the model had already finished writing.
 */
export function pacedOn(clock: Clock, llm: Llm, pace: { firstMs: number; tokenMs: number }): Llm {
  return {
    name: llm.name,
    async *stream(req: LlmRequest): AsyncGenerator<LlmEvent> {
      await clock.sleep(pace.firstMs, req.signal);
      for await (const e of llm.stream(req)) {
        yield e;
        if (e.type === 'text') await clock.sleep(pace.tokenMs, req.signal);
      }
    },
  };
}
