/**
 * One level of the density bench over the telephony transport's real protocol: `hiwar serve`'s
 * server (AgentServer + the telephony plugin) in this process, N Twilio Media Streams from a
 * caller process (bench/telephony-callers.ts), the fake service in a third. What is measured
 * here is everything hiwar does for a phone call: the WebSocket server, μ-law and base64 at the
 * edge, pacing with marks, and the session.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { tap } from '../src/rx.ts';
import { OpenAiLlm } from '../src/llm/openai.ts';
import { AgentServer } from '../src/server/server.ts';
import { CallTokens } from '../src/server/tokens.ts';
import { ServiceClient } from '../src/service/client.ts';
import { AgentSession } from '../src/session/agent-session.ts';
import { createLogger } from '../src/session/logger.ts';
import type { Transport, TransportOutput } from '../src/transport/types.ts';
import type { AudioFrame } from '../src/audio/frame.ts';
import { telephonyPlugin } from '../transports/telephony/index.ts';
import type { FakeServiceProcess } from './fake-service.ts';
import { benchAgent, perfClock, type BenchAgentOptions } from './harness.ts';
import { FRAME_MS, LATE_MS, epochNow, type CallerStats, type CallersStart } from './telephony-callers.ts';
import { rigCommand } from './pin.ts';
import { benchScript, SCRIPT_LOADER } from './script.ts';

/** Caller frames as they reach the session, counted late against the capture time the caller sent. */
export class ArrivalCounter {
  frames = 0;
  late = 0;

  /** Also sees each call's frames and its output (the barge-in bench's stamps); off in the density benches. */
  constructor(
    private readonly onFrame?: (call: string, f: AudioFrame) => void,
    private readonly onOutput?: (call: string, out: TransportOutput) => void,
  ) {}

  /** The transport, with its caller audio counted on the way to the session. */
  watch(t: Transport): Transport {
    const t0 = Number(t.call.parameters?.t0);
    let k = 0;
    const call = t.call.callId;
    this.onOutput?.(call, t.output);
    const audio$ = t.audio$.pipe(
      tap((f) => {
        this.onFrame?.(call, f);
        const due = t0 + FRAME_MS * ++k;
        this.frames++;
        if (epochNow() - due > LATE_MS) this.late++;
      }),
    );
    return {
      call: t.call,
      inputRate: t.inputRate,
      audio$,
      events$: t.events$,
      output: t.output,
      hangup: t.hangup?.bind(t),
      transfer: t.transfer?.bind(t),
      sendDtmf: t.sendDtmf?.bind(t),
    };
  }
}

export interface TelephonyRig {
  /** Caller frames that reached the sessions, and those late. */
  arrivals: { readonly frames: number; readonly late: number };
  /** The server's processes (for CPU, RSS and run-queue wait); this one when in-process. */
  pids(): number[];
  /** The callers' process once started (the rig: its run-queue wait says when the far end was starved). */
  rigPids(): number[];
  /** Where the server runs: "in the bench process" or "hiwar serve --workers N". */
  readonly where: string;
  /** Starts N callers (spread over a second) and resolves once all are connected. */
  start(calls: number, prefix: string): Promise<void>;
  stats(): Promise<CallerStats>;
  /** Hangs every caller up and waits for the server to free every call. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

const ask = <T>(child: ChildProcess, msg: object, reply: string) =>
  new Promise<T>((resolve, reject) => {
    const on = (m: { type: string }) => {
      if (m.type !== reply) return;
      child.off('message', on);
      child.off('exit', onExit);
      resolve(m as T);
    };
    const onExit = (code: number | null) => reject(new Error(`the caller process exited (${code})`));
    child.on('message', on);
    child.once('exit', onExit);
    child.send(msg);
  });

/** What a bench may watch in the in-process rig: each call's frames on their way in, its output, each session. */
export interface RigWatch {
  frame(call: string, f: AudioFrame): void;
  output(call: string, out: TransportOutput): void;
  session(call: string, s: AgentSession): void;
}

export async function telephonyRig(fake: Pick<FakeServiceProcess, 'baseUrl' | 'llmBaseUrl'>, agentOpts: BenchAgentOptions = {}, phases = 1, sendEveryMs?: number, watch?: RigWatch): Promise<TelephonyRig> {
  const arrivals = new ArrivalCounter(watch && ((call, f) => watch.frame(call, f)), watch && ((call, out) => watch.output(call, out)));
  const logger = createLogger('silent');
  const server = new AgentServer({
    port: 0,
    logger,
    maxCalls: 10_000,
    metrics: false,
    sessions: (transport) => {
      const tag = transport.call.callId;
      const session = new AgentSession({
        client: new ServiceClient({ apiKey: 'bench-key', baseUrl: fake.baseUrl }),
        transport: arrivals.watch(transport),
        agent: benchAgent(tag, agentOpts),
        llm: new OpenAiLlm({ apiKey: 'bench', baseURL: fake.llmBaseUrl, model: tag }),
        logger,
        clock: perfClock,
      });
      watch?.session(tag, session);
      return session;
    },
  });
  server.use(telephonyPlugin(server.host, { tokens: new CallTokens({ secret: 'bench' }), open: true, logger, media: { clock: perfClock, sendEveryMs } }));
  const { url } = await server.listen();
  const callers = callerProcess(url, phases);
  return {
    arrivals,
    pids: () => [process.pid],
    rigPids: callers.rigPids,
    where: 'hiwar serve\'s server in the bench process',
    start: callers.start,
    stats: callers.stats,
    stop: async () => {
      await callers.stop();
      for (let i = 0; i < 300 && server.calls.active > 0; i++) await new Promise((r) => setTimeout(r, 100));
    },
    close: async () => {
      callers.kill();
      await server.close();
    },
  };
}

/**
 * The Twilio callers' process (bench/telephony-callers.ts), started on first use, against `url`;
 * with a bench's pin in force (bench/pin.ts), on the rig's CPUs (`taskset -c` in front of node).
 */
export function callerProcess(url: string, phases: number): Pick<TelephonyRig, 'start' | 'stats' | 'rigPids'> & { stop(): Promise<void>; kill(): void } {
  let child: ChildProcess | undefined;
  const callers = () => {
    const [execPath, execArgv] = rigCommand(process.execPath, SCRIPT_LOADER);
    child ??= fork(benchScript('telephony-callers'), [], { execPath, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return child;
  };
  return {
    rigPids: () => (child?.pid !== undefined && child.exitCode === null ? [child.pid] : []),
    start: async (calls, prefix) => {
      const msg: CallersStart = { type: 'start', url: `${url.replace('http', 'ws')}/telephony/twilio`, calls, prefix, speechMs: 600, phases };
      await ask(callers(), msg, 'started');
    },
    stats: () => ask<CallerStats>(callers(), { type: 'stats' }, 'stats'),
    stop: async () => {
      const c = child;
      child = undefined;
      if (c) {
        await ask(c, { type: 'stop' }, 'stopped').catch(() => undefined);
        c.kill();
      }
    },
    kill: () => child?.kill(),
  };
}
