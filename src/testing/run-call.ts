import { parsedArguments } from '../llm/tools.ts';
import type { Llm } from '../llm/types.ts';
import { RENDER_CACHE_DEFAULTS } from '../sandbox/engines/render-cache.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Agent } from '../session/agent.ts';
import type { AgentSession } from '../session/agent-session.ts';
import type { CallReport, ReportTurn, SessionEvent, TurnMetrics } from '../session/events.ts';
import type { Logger } from '../session/logger.ts';
import { agentProblem } from '../session/check-agent.ts';
import { agentPhrases } from '../session/agent-phrases.ts';
import { voicingLine } from '../sandbox/voicing-line.ts';
import { progressOf, stderrProgress, untaught, type TestProgress } from './progress.ts';
import { startTestSandbox, type KeyRefusal, type TestSandbox } from './sandbox.ts';
import { prepareFixedLines } from '../session/prepare-fixed-lines.ts';
import { parseScenario, type ScenarioInput } from './scenario.ts';
import type { CallerLine, CallerStep, SimulatedCaller } from './simulated-caller.ts';
import { simulateCall } from './simulate.ts';
import { missingVariables } from '../session/variables.ts';
import { SteadyScaledClock } from './steady-clock.ts';

/** The defaults of `runCall`, in one place. */
export const TESTING_DEFAULTS = {
  /**
   * Call clock speed: the call runs this many times faster than real time, and its latencies are
   * in call time. 3 is what hiwar's own suite runs its calls at on a loaded 2-core machine; the
   * clock does not count the moments the process is not running (a busy CI runner), so turn
   * order and barge-in timing hold there too.
   */
  speed: 3,
  /** The fastest clock `runCall` accepts (the recognizer must keep up on the same cores). */
  maxSpeed: 3,
  /** The longest the caller waits for the agent at one step, in call time (ms). */
  maxWaitMs: 30_000,
  /** Where it says what it is doing before the call (starting the sandbox, voicing phrases): stderr. */
  progress: stderrProgress,
  /**
   * How long, after the call ended, `runCall` waits for a tool given up (past its `timeoutMs`,
   * or its reply cut off) that still runs, so that its late answer is in `events` (`tool_late`
   * with `afterEnd: true`). Real milliseconds, as tools' deadlines; nothing is waited for when
   * no tool was given up, or all have answered.
   */
  lateToolWaitMs: 5_000,
} as const;

/** Options of `runCall`. */
export interface RunCallOptions {
  /**
   * A sandbox shared by several calls (`startTestSandbox`); the agent's phrases are taught to it.
   * Without it (and without `client`), the call starts its own and closes it afterwards.
   */
  sandbox?: TestSandbox;
  /**
   * A client of another service (the real one, with your key) instead of a sandbox. Nothing is
   * taught to it; keep `speed` at 1 or 2 there (the service closes audio a minute ahead of real time).
   */
  client?: ServiceClient;
  /**
   * The service refuses the key for this call (`TestSandbox.refuseKey`: `'empty-wallet'` or
   * `'no-access'`), once the agent's out-of-service line has been rendered, as a server renders
   * it at start-up: the call tests what a caller hears when the service stops serving the key
   * (the line, then `ended` `out of service: …`). Needs a sandbox (its own, or `sandbox`); the key
   * is given back when the call ends.
   */
  outOfService?: KeyRefusal;
  /** More phrases for the sandbox's recognizer (the agent's intent examples are always taught). */
  phrases?: string[];
  /** @default TESTING_DEFAULTS.speed */
  speed?: number;
  /** @default TESTING_DEFAULTS.maxWaitMs */
  maxWaitMs?: number;
  /** @default TESTING_DEFAULTS.lateToolWaitMs */
  lateToolWaitMs?: number;
  /**
   * The call's variables, as a placed call carries them (`placeCall({ variables })`, `hiwar call
   * --var`): they fill `{name}` placeholders in the agent's greeting and instructions and reach
   * its tools as `ctx.call.info.parameters`. An agent whose text uses one not given is refused
   * before the call starts, as a server refuses such a call.
   */
  variables?: Record<string, string>;
  /** The model; default the agent's `llm`, else its scripted intents (no network). */
  llm?: Llm;
  /**
   * Where it says what it is doing before the call starts: starting its own sandbox, voicing the
   * phrases the recognizer does not know yet (a minute on a busy machine the first time). A line
   * each; `false`: nothing.
   * @default TESTING_DEFAULTS.progress (a line on stderr)
   */
  progress?: TestProgress;
  /** Logs of the session; default none. */
  logger?: Logger;
  /**
   * Debug lines show the keys pressed, the long numbers said and what tasks collected
   * (`SessionOptions.logKeys`). @default on when `HIWAR_LOG_KEYS=1`, else off
   */
  logKeys?: boolean;
  /** Every event of the session as it happens (the same list is in the result). */
  onEvent?: (event: SessionEvent) => void;
  /** The running session and caller, for a test that reaches into the call. */
  onSession?: (session: AgentSession, caller: SimulatedCaller) => void;
}

/** One tool the agent ran during the call. */
export interface TestToolCall {
  name: string;
  /** The arguments as the model gave them, parsed (`undefined` when they were not JSON). */
  args: unknown;
  result: unknown;
  /** Set when the tool failed or its arguments were refused. */
  error?: string;
  /** The tool's own code threw (the session also reported an `error` event of kind `tool`). */
  threw?: true;
}

/** A finished test call: the report and views of it that tests assert on. */
export interface TestCall {
  /** The session's report (what `hiwar demo` writes to report.json). */
  report: CallReport;
  /**
   * Every session event, in order; after the call's own, the late answers of tools given up that
   * answered once the call had ended (`tool_late` with `afterEnd: true`, waited for up to
   * `lateToolWaitMs`).
   */
  events: SessionEvent[];
  /** Both sides' turns, in order (`report.turns`). */
  turns: ReportTurn[];
  /** What the agent heard the caller say, turn by turn (DTMF entries as `[DTMF: 12]`). */
  userTurns: string[];
  /** The agent's turns; an interrupted one has `heardText`, what the caller heard of it. */
  agentTurns: ReportTurn[];
  /** Tools the agent ran, in order, with their arguments and results. */
  toolCalls: TestToolCall[];
  /** Metrics of each agent turn that had them (voice-to-voice and its parts, in call-time ms). */
  metrics: TurnMetrics[];
  /** Why the call ended (`report.ended`). */
  ended: string;
  /** Set when the agent hung up or transferred the call (`summary`: the one passed with the transfer). */
  endedByAgent?: { hangup?: string; transfer?: string; summary?: string };
  /** The caller's lines with their times (seconds since the start of the call). */
  callerLines: CallerLine[];
  /** The call as a stereo WAV file: caller left, agent right, on one timeline. */
  recording(): Uint8Array<ArrayBuffer>;
}

/** A script: the steps alone, or a whole scenario (`callerVoice`, `sampleRate`, `steps`). */
export type CallScript = ScenarioInput | CallerStep[];

/**
 * Runs one scripted call against an agent, offline by default, and returns what happened.
 *
 * The caller's lines are voiced by the sandbox (so its recognizer knows them), the agent's intent
 * examples and `phrases` are taught to it, and the call runs on a clock `speed` times real time.
 * A bad script throws before anything starts; a call that goes wrong does not throw: look at
 * `ended`, `events` and the turns.
 *
 * @example
 * const call = await runCall(agent, { steps: [{ say: 'كم رصيدي' }, { hangup: true }] });
 * expectToolCall(call, 'get_balance', { account: 'current' });
 */
export async function runCall(agent: Agent, script: CallScript, options: RunCallOptions = {}): Promise<TestCall> {
  const problem = agentProblem(agent);
  if (problem) throw new TypeError(`runCall: the first argument is not an Agent (${problem})`);
  const scenario = parseScenario(script, 'runCall script');
  const missing = missingVariables(agent, options.variables ?? {});
  if (missing.length) {
    const uses = missing.map((m) => `{${m}}`).join(', ');
    throw new TypeError(`runCall: agent "${agent.name}" uses ${uses} in its greeting or instructions: give ${missing.length > 1 ? 'them' : 'it'} in the options' variables ({ variables: { ${missing.map((m) => `${m}: '…'`).join(', ')} } }), as a placed call carries them`);
  }
  const speed = options.speed ?? TESTING_DEFAULTS.speed;
  if (!(speed >= 1 && speed <= TESTING_DEFAULTS.maxSpeed)) throw new RangeError(`runCall: speed must be from 1 to ${TESTING_DEFAULTS.maxSpeed}, got ${speed}`);
  if (options.sandbox && options.client) throw new TypeError('runCall: give a sandbox or a client, not both');
  if (options.outOfService && options.client) throw new TypeError('runCall: outOfService refuses a sandbox\'s key; it cannot with a client of another service');
  const say = progressOf(options.progress ?? TESTING_DEFAULTS.progress);
  const own = options.sandbox || options.client ? undefined : await startTestSandbox({ progress: say });
  const sandbox = options.sandbox ?? own;
  const clock = new SteadyScaledClock(speed);
  let restoreKey: (() => void) | undefined;
  try {
    // In the caller's voice only: the one this call speaks with.
    const phrases = [...agentPhrases(agent), ...(options.phrases ?? [])];
    const count = sandbox ? untaught(phrases, [scenario.callerVoice], (p, v) => sandbox.knows(p, v)) : 0;
    if (count) say(voicingLine(count, [scenario.callerVoice], RENDER_CACHE_DEFAULTS.dir));
    await sandbox?.learn(phrases, [scenario.callerVoice]);
    if (options.outOfService && sandbox) {
      await prepareFixedLines(sandbox.client, agent);
      restoreKey = sandbox.refuseKey(options.outOfService);
    }
    const { report, caller, events } = await simulateCall({
      client: options.client ?? sandbox!.client,
      agent,
      scenario,
      clock,
      llm: options.llm,
      logger: options.logger,
      logKeys: options.logKeys,
      onEvent: options.onEvent,
      onSession: options.onSession,
      maxWaitMs: options.maxWaitMs ?? TESTING_DEFAULTS.maxWaitMs,
      variables: options.variables,
      lateToolWaitMs: options.lateToolWaitMs ?? TESTING_DEFAULTS.lateToolWaitMs,
    });
    return {
      report,
      events,
      turns: report.turns,
      userTurns: report.turns.filter((t) => t.role === 'user').map((t) => t.text),
      agentTurns: report.turns.filter((t) => t.role === 'agent'),
      toolCalls: events.flatMap((e) => (e.type === 'tool' ? [toolCall(e.outcome)] : [])),
      metrics: report.turns.flatMap((t) => (t.role === 'agent' && t.metrics ? [t.metrics] : [])),
      ended: report.ended,
      endedByAgent: caller.endedByAgent,
      callerLines: caller.lines,
      recording: () => caller.recording(),
    };
  } finally {
    restoreKey?.();
    clock.stop();
    await own?.close();
  }
}

function toolCall(o: Extract<SessionEvent, { type: 'tool' }>['outcome']): TestToolCall {
  return { name: o.call.name, args: parsedArguments(o.call), result: o.result, ...(o.error ? { error: o.error } : {}), ...(o.threw ? { threw: true as const } : {}) };
}
