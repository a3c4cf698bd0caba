/**
 * What the benches share: a caller transport driven by one frame clock for all calls, an agent
 * wired to the fake service, and percentiles.
 *
 * The bench caller is hand-written rather than the local `SimulatedCaller` because a bench must
 * see every due time (late frames) and every interrupt, and must cost next to nothing itself.
 */
import { Subject } from '../src/rx.ts';
import { performance } from 'node:perf_hooks';
import { OpenAiLlm } from '../src/llm/openai.ts';
import { ServiceClient } from '../src/service/client.ts';
import type { Agent } from '../src/session/agent.ts';
import { AgentSession } from '../src/session/agent-session.ts';
import type { SessionEvent, TurnMetrics } from '../src/session/events.ts';
import { createLogger } from '../src/session/logger.ts';
import { CallerAudio } from '../src/transport/caller-audio.ts';
import { warmUpNormalizer } from '../src/text/warm-up.ts';
import { realTimeAfter, sleepFor, type Clock } from '../src/transport/clock.ts';
import { PacedOutput } from '../src/transport/paced-output.ts';
import type { CallInfo, Transport, TransportEvent, TransportOutput } from '../src/transport/types.ts';
import { z } from 'zod';
import { defineTool } from '../src/llm/types.ts';
import { STREAM_TOOL, type FakeServiceProcess, type Hold } from './fake-service.ts';
import { LONG_TICK_MS, type Busy } from './tail.ts';

export const FRAME_MS = 20;
export const RATE = 8000;
const FRAME = (RATE * FRAME_MS) / 1000;
/** A frame is late when handed over more than this past its due time. */
export const LATE_MS = 20;

const SPEECH = (() => {
  const f = new Int16Array(FRAME);
  for (let i = 0; i < FRAME; i++) f[i] = Math.round(3000 * Math.sin((2 * Math.PI * 220 * i) / RATE));
  return f;
})();
const SILENCE = new Int16Array(FRAME);

/**
 * Real time at sub-millisecond resolution (the default clock reads Date.now(), whole ms), shared
 * by the sessions, the callers and the frame clock so every figure is on one timeline.
 */
export const perfClock: Clock = {
  speed: 1,
  now: () => performance.now(),
  sleep: (ms, signal) => sleepFor(ms, signal),
  after: (ms, fire) => realTimeAfter(ms, fire),
};

/**
 * A density bench's answer: the largest level such that every level up to it was clean (a late
 * frame at 20 calls is not excused by a clean run at 60), and the first level that was not.
 */
export function largestClean<R extends { calls: number }>(rows: R[], late: (r: R) => number): { best?: R; firstLate?: R } {
  const sorted = [...rows].sort((a, b) => a.calls - b.calls);
  const firstLate = sorted.find((r) => late(r) > 0);
  return { best: sorted.filter((r) => !firstLate || r.calls < firstLate.calls).at(-1), firstLate };
}

export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
export const pcts = (xs: number[]) => ({ p50: round(percentile(xs, 50)), p95: round(percentile(xs, 95)), p99: round(percentile(xs, 99)), n: xs.length });
export const round = (x: number, d = 1) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null);

/**
 * One timer for the caller frames of every call in the process (like a media server's packet
 * clock): due times advance by 20 ms, and a tick that fires late still sends every frame owed.
 * With `phases` > 1 the calls are spread over the 20 ms (call i on phase i mod phases, a tick
 * every 20 / phases ms), as independent calls' clocks are; 1 hands every call's frame over at
 * once, the worst case.
 */
export class FrameClock {
  private readonly callers: Set<BenchCaller>[];
  private added = 0;
  private tickNo = 0;
  private timer: NodeJS.Timeout | undefined;
  private due = 0;
  lateFrames = 0;
  frames = 0;
  /** Ticks that held the loop LONG_TICK_MS or more (bench/tail.ts), and all ticks' time. */
  readonly longTicks: Busy[] = [];
  tickMs = 0;

  constructor(private readonly phases = 1) {
    if (!Number.isInteger(phases) || phases < 1 || FRAME_MS % phases) throw new Error(`phases must divide ${FRAME_MS} (1, 2, 4, 5, 10, 20), not ${phases}`);
    this.callers = Array.from({ length: phases }, () => new Set<BenchCaller>());
  }

  private get size(): number {
    return this.callers.reduce((n, s) => n + s.size, 0);
  }

  add(c: BenchCaller): void {
    this.callers[this.added++ % this.phases]!.add(c);
    if (!this.timer) {
      this.due = performance.now();
      this.tick();
    }
  }

  remove(c: BenchCaller): void {
    for (const s of this.callers) s.delete(c);
    if (!this.size && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private tick = (): void => {
    const now = performance.now();
    this.runDue(now);
    const end = performance.now();
    this.tickMs += end - now;
    if (end - now >= LONG_TICK_MS) this.longTicks.push({ start: now, ms: end - now, what: 'frame tick' });
    this.timer = this.size ? setTimeout(this.tick, Math.max(0, this.due - end)) : undefined;
  };

  private runDue(now: number): void {
    // At most 100 ms of owed frames per wake-up; the rest on the next one, after the sessions had
    // their turn. Unbounded, a starved process whose catching up took longer than the frames it
    // caught up on never left this loop (300 local calls at load 13 never ended their level).
    let ran = 0;
    while (this.due <= now && ran++ < 5 * this.phases) {
      const late = now - this.due > LATE_MS;
      for (const c of this.callers[this.tickNo % this.phases]!) {
        this.frames++;
        if (late) this.lateFrames++;
        c.frame(this.due);
      }
      this.due += FRAME_MS / this.phases;
      this.tickNo++;
    }
  }
}

export interface CallerPlan {
  turns: number;
  /** Speech per turn. */
  speechMs: number;
  /** Silence after the agent's reply before the caller speaks again. */
  gapMs: number;
  /** When the caller first speaks, ms after the call starts. @default 300 */
  firstSpeechMs?: number;
  /** Barge in at a random point of each reply (from `minMs` to `maxMs` into it) instead of waiting. */
  bargeIn?: { minMs: number; maxMs: number };
}

export interface TurnRecord {
  speechEnd: number;
  /** When the first silent frame after the speech (the one that ends it for an endpointer) was handed over. */
  silenceHandedAt?: number;
  /** First agent audio handed to the line after the speech ended (the caller's own stopwatch). */
  firstAgentAudio?: number;
  metrics?: TurnMetrics;
}

export interface BargeRecord {
  speechStart: number;
  /** The session's interruption events (pause / confirm) and the output's interrupt() calls. */
  decided?: number;
  interrupted?: number;
  /** Agent audio handed to the line after interrupt() was called. */
  msAfterInterrupt: number;
}

/** A caller on a phone line at 8 kHz; agent audio goes to a paced sink that counts late frames. */
export class BenchCaller implements Transport {
  readonly call: CallInfo;
  readonly inputRate = RATE;
  private readonly caller = new CallerAudio();
  readonly audio$ = this.caller.audio$;
  readonly events$ = new Subject<TransportEvent>();
  readonly output: TransportOutput;
  readonly turns: TurnRecord[] = [];
  readonly barges: BargeRecord[] = [];
  lateAgentFrames = 0;
  /** Of the late agent frames, those after a gap inside a reply (the output ran dry). */
  underruns = 0;
  agentFrames = 0;
  private speakingLeft = 0;
  private nextSpeakAt: number;
  private agentStart: number | undefined;
  private lastAgentAudio = 0;
  private waitingReply = false;
  private bargeAt: number | undefined;
  private done = false;
  private turn = 0;

  constructor(
    tag: string,
    private readonly plan: CallerPlan,
    private readonly frames: FrameClock,
    clock: Clock = perfClock,
  ) {
    this.call = { callId: tag, provider: 'bench', parameters: {} };
    const paced = new PacedOutput(RATE, clock, (samples, time, lateMs) => this.onAgentAudio(samples, time, lateMs));
    // Wrapped to time the session's interrupt() calls.
    this.output = {
      sampleRate: paced.sampleRate,
      write: (f) => paced.write(f),
      mark: (id) => paced.mark(id),
      interrupt: () => {
        const b = this.barges.at(-1);
        if (b && b.interrupted === undefined && this.speakingLeft > 0) b.interrupted = performance.now();
        return paced.interrupt();
      },
      playback$: paced.playback$,
      position: () => paced.position(),
      close: () => paced.close(),
    };
    this.nextSpeakAt = performance.now() + (plan.firstSpeechMs ?? 300);
    frames.add(this);
  }

  /** The session's events: the first interruption decision of each barge-in. */
  onSessionEvent(e: SessionEvent): void {
    if (e.type === 'interruption' && e.kind !== 'resumed') {
      const b = this.barges.at(-1);
      if (b && b.decided === undefined) b.decided = performance.now();
    }
    if (e.type === 'metrics') {
      const t = this.turns.find((r) => !r.metrics);
      if (t) t.metrics = e.metrics;
    }
  }

  private onAgentAudio(samples: Int16Array, time: number, lateMs: number): void {
    const now = performance.now();
    this.agentFrames++;
    // PacedOutput's times are on the session clock, which is performance.now() here. A frame
    // after an underrun (the output ran dry mid-reply) is late by the gap the caller heard.
    if (now - time > LATE_MS || lateMs > LATE_MS) this.lateAgentFrames++;
    if (lateMs > LATE_MS) this.underruns++;
    const b = this.barges.at(-1);
    // Only while the caller still speaks: after that, audio is the reply to the barge-in.
    if (b?.interrupted !== undefined && this.speakingLeft > 0) b.msAfterInterrupt += (samples.length / RATE) * 1000;
    this.lastAgentAudio = now;
    if (this.agentStart === undefined) {
      this.agentStart = now;
      if (this.plan.bargeIn && this.turn < this.plan.turns) {
        const { minMs, maxMs } = this.plan.bargeIn;
        this.bargeAt = now + minMs + Math.random() * (maxMs - minMs);
      }
    }
    if (this.waitingReply) {
      const t = this.turns.at(-1);
      if (t && t.firstAgentAudio === undefined) t.firstAgentAudio = now;
    }
  }

  /** Called by the frame clock every 20 ms with the frame's due time (the end of its capture). */
  frame(due: number): void {
    if (this.done) return;
    let speech = false;
    if (this.speakingLeft > 0) {
      speech = true;
      this.speakingLeft -= FRAME_MS;
      if (this.speakingLeft <= 0) {
        this.turns.push({ speechEnd: due });
        this.waitingReply = true;
        this.agentStart = undefined;
      }
    } else if (this.bargeAt !== undefined && due >= this.bargeAt) {
      this.bargeAt = undefined;
      this.barges.push({ speechStart: due, msAfterInterrupt: 0 });
      this.startSpeaking();
      speech = true;
    } else if (!this.waitingReply && due >= this.nextSpeakAt) {
      if (this.turn >= this.plan.turns) return this.finish();
      this.startSpeaking();
      speech = true;
    } else if (this.waitingReply && this.agentStart !== undefined && due - this.lastAgentAudio > 300 && this.bargeAt === undefined) {
      this.waitingReply = false;
      this.nextSpeakAt = due + this.plan.gapMs;
    } else if (this.waitingReply && this.turns.length && due - this.turns.at(-1)!.speechEnd > 15_000) {
      this.waitingReply = false; // no reply: go on rather than hang the bench
      this.nextSpeakAt = due;
    }
    if (!speech && this.waitingReply) {
      const t = this.turns.at(-1);
      if (t && t.silenceHandedAt === undefined) t.silenceHandedAt = performance.now();
    }
    // As on a phone line: the frame handed over at `due` was captured in the 20 ms before it.
    this.caller.push({ samples: speech ? SPEECH : SILENCE, sampleRate: RATE, time: due - FRAME_MS });
  }

  private startSpeaking(): void {
    this.turn++;
    this.speakingLeft = this.plan.speechMs;
    this.waitingReply = false;
  }

  private finish(): void {
    this.done = true;
    this.frames.remove(this);
    this.caller.end();
  }

  /** Ends the call now (the soak's caller hangs up). */
  hangUp(): void {
    if (!this.done) this.finish();
  }
}

/** What a bench may vary in the agent. */
export interface BenchAgentOptions {
  /** /listen uplink message size (`agent.stt.uplinkFrameMs`). */
  uplinkFrameMs?: number;
  /** The tool the fake's streamed reply calls (`STREAM_TOOL`), answering at once. */
  tool?: boolean;
  /** `interruption.localVad`: speech start heard in hiwar's process too (`vad=energy`). */
  localVad?: 'energy';
  /** `interruption.energyVad.minSpeechMs` (`vadMs=20`: one loud frame starts speech). */
  localVadMinSpeechMs?: number;
}

/** The bench's tool: the fake's streamed reply calls it after its text; it answers at once. */
const BALANCE_TOOL = defineTool({
  name: STREAM_TOOL,
  description: 'Balance of an account.',
  parameters: z.object({ account: z.string() }),
  execute: ({ account }) => ({ account, balance: 2450 }),
  filler: false,
});

export function benchAgent(tag: string, o: BenchAgentOptions = {}): Agent {
  return {
    name: 'bench',
    instructions: 'أنت موظف خدمة عملاء.',
    voice: { voice_id: tag },
    outOfServiceLine: 'الخدمة غير متاحة.',
    stt: { hotwords: [tag], ...(o.uplinkFrameMs !== undefined ? { uplinkFrameMs: o.uplinkFrameMs } : {}) },
    // The fake service answers a fixed time after speech ends, whatever endpointing it is asked
    // for, so the Arabic turn policy's wait (the rest of the silence after a short endpointing,
    // for a turn with no cue) would read as hiwar's own time here; against the real service that
    // silence is the service's either way. The policy's effect is `npm run bench -- turns`'s.
    turn: { endDelayMs: 0, policy: false },
    ...(o.tool ? { tools: [BALANCE_TOOL] } : {}),
    ...(o.localVad ? { interruption: { localVad: o.localVad, energyVad: { minSpeechMs: o.localVadMinSpeechMs } } } : {}),
  };
}

export interface RunningCall {
  caller: BenchCaller;
  session: AgentSession;
  done: Promise<unknown>;
}

/** Starts one call of the bench agent against the fake service. */
export function startCall(fake: Pick<FakeServiceProcess, 'baseUrl' | 'llmBaseUrl'>, tag: string, plan: CallerPlan, frames: FrameClock, agentOpts: BenchAgentOptions = {}): RunningCall {
  // What `AgentServer` does before it takes a call (once per process): the bench's sessions are
  // a server's, so their first replies do not pay the normalizer's cold start either.
  warmUpNormalizer();
  const caller = new BenchCaller(tag, plan, frames);
  const client = new ServiceClient({ apiKey: 'bench-key', baseUrl: fake.baseUrl });
  const session = new AgentSession({
    client,
    transport: caller,
    agent: benchAgent(tag, agentOpts),
    llm: new OpenAiLlm({ apiKey: 'bench', baseURL: fake.llmBaseUrl, model: tag }),
    logger: createLogger('silent'),
    clock: perfClock,
  });
  session.events$.subscribe((e) => caller.onSessionEvent(e));
  return { caller, session, done: session.run() };
}

/**
 * The holds of one call grouped per turn, in order: each final (stt) with the first model hold
 * that started after it and the first synthesis hold that started after that. Matched by time,
 * not by index: the out-of-service line a session renders over HTTP at the start of the call is
 * a synthesis hold of no turn.
 */
export function holdsPerTurn(holds: Hold[] | undefined): { stt: number; llm: number; tts: number; holds: { stt: Hold; llm?: Hold; tts?: Hold } }[] {
  const by = (k: Hold['kind']) => (holds ?? []).filter((h) => h.kind === k);
  const start = (h: Hold) => h.at - h.heldMs;
  const llms = by('llm');
  const ttss = by('tts');
  const stts = by('stt');
  return stts.map((s, i) => {
    const before = stts[i + 1]?.at ?? Infinity;
    const llm = llms.find((h) => start(h) >= s.at && start(h) < before);
    const tts = llm && ttss.find((h) => start(h) >= llm.at && start(h) < before);
    return { stt: s.heldMs, llm: llm?.heldMs ?? NaN, tts: tts?.heldMs ?? NaN, holds: { stt: s, llm, tts } };
  });
}

export interface BenchArgs {
  quick: boolean;
  rest: string[];
}

/** A bench's arguments: positional numbers, and `name=value` options. */
export function benchOptions(rest: string[]): { numbers: number[]; named: Record<string, string>; agent: BenchAgentOptions } {
  const named = Object.fromEntries(rest.filter((a) => a.includes('=')).map((a) => a.split('=') as [string, string]));
  const numbers = rest.filter((a) => !a.includes('=')).map(Number);
  const agent: BenchAgentOptions = {};
  if (named.uplink !== undefined) agent.uplinkFrameMs = Number(named.uplink);
  if (named.vad !== undefined) {
    if (named.vad !== 'energy' && named.vad !== 'service') throw new Error(`vad= is energy (hiwar's own detector of speech start) or service (the service's SpeechStarted alone), not ${named.vad}`);
    if (named.vad === 'energy') agent.localVad = 'energy';
  }
  if (named.vadMs !== undefined) agent.localVadMinSpeechMs = Number(named.vadMs);
  return { numbers, named, agent };
}

/** Prints a table with the target beside each figure. */
export function table(title: string, rows: [string, string | number | null, string][]): void {
  console.log(`\n${title}`);
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(`${'figure'.padEnd(w)}  ${'value'.padStart(10)}  target`);
  for (const [name, value, target] of rows) console.log(`${name.padEnd(w)}  ${String(value ?? '–').padStart(10)}  ${target}`);
}
