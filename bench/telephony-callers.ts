/**
 * The far end of the telephony density bench, in a process of its own so the callers' work is
 * not counted as hiwar's: N Twilio Media Streams over real WebSockets to `hiwar serve`'s
 * telephony route, as Twilio speaks them (connected, start, media at 20 ms, marks echoed once
 * played, every mark echoed on a clear, stop).
 *
 * Caller audio goes out on one 20 ms clock for every call; each media message carries its
 * capture time so the server side can count frames that reach it late. The agent's audio is
 * played as a platform would: continuously from the first frame of a burst; a frame that
 * arrives more than 20 ms after its turn to play, mid-reply, is a late agent frame (the caller
 * hears a gap). Driven by the parent over IPC: start → stats → stop.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { mulaw } from '../src/audio/g711.ts';
import { BargeWire, type CallerBarge } from './barge-wire.ts';

export type { CallerBarge } from './barge-wire.ts';

export const FRAME_MS = 20;
export const LATE_MS = 20;
/**
 * A pause in agent audio longer than this is the end of a reply, not a late frame. The callers
 * speak again at the earliest 1.9 s after a reply ended (300 ms, a 1–3 s gap, 600 ms of speech)
 * and the fake answers 500 ms after that, so any shorter gap is an underrun inside a reply (it
 * was 250 ms: a stall of a quarter second or more mid-reply went uncounted).
 */
const REPLY_GAP_MS = 1_000;
const RATE = 8000;
const FRAME = (RATE * FRAME_MS) / 1000;

const payload = (speech: boolean) => {
  const pcm = new Int16Array(FRAME);
  if (speech) for (let i = 0; i < FRAME; i++) pcm[i] = Math.round(3000 * Math.sin((2 * Math.PI * 220 * i) / RATE));
  return Buffer.from(mulaw.encode(pcm)).toString('base64');
};
const SPEECH = payload(true);
const SILENCE = payload(false);

/** Wall-clock ms with sub-ms precision, comparable across the two processes. */
export const epochNow = () => performance.timeOrigin + performance.now();

export interface CallersStart {
  type: 'start';
  url: string;
  calls: number;
  prefix: string;
  speechMs: number;
  /**
   * Phases of the 20 ms clock the calls are spread over: 1 sends every call's frame on the same
   * tick (a burst of N messages every 20 ms, the worst case); 4 sends a quarter of the calls every
   * 5 ms, nearer to independent phone calls, whose 20 ms clocks are not in step.
   */
  phases: number;
}
export interface CallerStats {
  type: 'stats';
  callerFrames: number;
  /** Ticks of this process's own clock that fired late (its frames then left late). */
  lateTicks: number;
  agentFrames: number;
  lateAgentFrames: number;
  /**
   * Of the late agent frames, those read while this process had itself been stalled (its clock's
   * tick more than 20 ms overdue): the frame may have waited in this process's socket, so the
   * gap may be the caller's own, not hiwar's.
   */
  lateAgentWhileStalled: number;
  answeredTurns: number;
  closedEarly: number;
  /** This process's CPU so far (user + system), µs: the far end's cost, not hiwar's. */
  cpuUs: number;
  /**
   * This process's event-loop delay since the previous stats (p99 and max, ms): a stalled caller
   * process reads the agent's audio late and counts the gap as a late agent frame.
   */
  loopP99Ms: number;
  loopMaxMs: number;
  /**
   * How long after its due time each tick's last frame left this process, since the previous
   * stats (p50, p99, max, ms): a burst of N calls' frames takes this process time to write, and a
   * frame written 8 ms after its capture has 12 ms left before the server counts it late.
   */
  burstLagP50Ms: number;
  burstLagP99Ms: number;
  burstLagMaxMs: number;
  /**
   * Barge-ins (`HIWAR_BENCH_BARGE_IN=min,max`: each caller speaks from min to max ms into every
   * reply): those that got no `clear` within 2 s, and each cleared one's moments on this
   * process's clock (epoch ms): the agent media it read around its speech start and the clear
   * (bench/barge-wire.ts says which figure each belongs to; bench/bargein-stages.ts its stages).
   */
  bargeInsNotCleared: number;
  bargeIns: CallerBarge[];
}

/** `HIWAR_BENCH_BARGE_IN=min,max` (set by the barge-in bench): when into each reply callers barge in. */
const BARGE_IN = process.env.HIWAR_BENCH_BARGE_IN?.split(',').map(Number) as [number, number] | undefined;

/**
 * `HIWAR_BENCH_FIRST_SPEECH_MS=N` (the barge-in bench's `spread=`): each caller first speaks at a
 * random moment up to N ms after the first 300, instead of all at 300 ms (their first turns then
 * do not all run together).
 */
const FIRST_SPEECH_SPREAD_MS = Number(process.env.HIWAR_BENCH_FIRST_SPEECH_MS ?? 0);

class TwilioCaller {
  private readonly ws: WebSocket;
  private readonly sid: string;
  private open = false;
  private chunk = 0;
  private t0 = 0;
  private speakingLeft = 0;
  private nextSpeakAt: number;
  private waitingReply = false;
  private replyStarted = false;
  private speechEnd = 0;
  /** When the audio received so far ends if played without a break. */
  private playingUntil = 0;
  private marks: { at: number; name: string }[] = [];
  agentFrames = 0;
  lateAgentFrames = 0;
  lateAgentWhileStalled = 0;
  answeredTurns = 0;
  closed = false;
  /** When to barge into the reply playing now, and the barge-in under way. */
  private bargeAt: number | undefined;
  private readonly barge: BargeWire;
  readonly bargeDetails: CallerBarge[] = [];
  bargeMissed = 0;

  constructor(
    url: string,
    readonly tag: string,
    private readonly speechMs: number,
    private readonly gapMs: number,
    /** Due time of the next tick of the shared clock: this call's first frame goes out then. */
    nextDue: () => number,
  ) {
    this.sid = `MZ${tag}`;
    this.barge = new BargeWire(tag);
    this.nextSpeakAt = epochNow() + 300 + Math.random() * FIRST_SPEECH_SPREAD_MS;
    this.ws = new WebSocket(url);
    this.ws.on('open', () => {
      // Frame k (from 0) is due at t0 + 20·(k + 1): the server counts late arrivals from it.
      this.t0 = nextDue() - FRAME_MS;
      this.ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      this.ws.send(
        JSON.stringify({
          event: 'start',
          streamSid: this.sid,
          start: { accountSid: 'ACbench', streamSid: this.sid, callSid: tag, tracks: ['inbound'], customParameters: { t0: String(this.t0) }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
        }),
      );
      this.open = true;
    });
    this.ws.on('message', (data) => this.onMessage(data.toString()));
    this.ws.on('close', () => (this.closed = true));
    this.ws.on('error', () => {});
  }

  private onMessage(text: string): void {
    const now = epochNow();
    // Only the fields the bench needs, without parsing the audio out of every message.
    if (text.startsWith('{"event":"media"')) {
      this.agentFrames++;
      const gap = now - this.playingUntil;
      if (gap > LATE_MS && gap < REPLY_GAP_MS) {
        this.lateAgentFrames++;
        if (stalled(now)) this.lateAgentWhileStalled++;
      }
      this.playingUntil = Math.max(this.playingUntil, now) + FRAME_MS;
      if (BARGE_IN) this.barge.media(now);
      if (this.waitingReply && !this.replyStarted) {
        this.replyStarted = true;
        this.answeredTurns++;
        if (BARGE_IN) this.bargeAt = now + BARGE_IN[0] + Math.random() * (BARGE_IN[1] - BARGE_IN[0]);
      }
      return;
    }
    const m = JSON.parse(text) as { event: string; mark?: { name: string } };
    if (m.event === 'mark' && m.mark) this.marks.push({ at: Math.max(now, this.playingUntil), name: m.mark.name });
    else if (m.event === 'clear') {
      const b = this.barge.clear(now);
      if (b) this.bargeDetails.push(b);
      this.playingUntil = now;
      for (const k of this.marks.splice(0)) this.echo(k.name);
    }
  }

  private echo(name: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ event: 'mark', streamSid: this.sid, mark: { name } }));
  }

  /** One tick of the shared clock: `due` is the end of the 20 ms this frame captured. */
  frame(due: number): boolean {
    if (!this.open || this.closed || this.ws.readyState !== WebSocket.OPEN) return false;
    while (this.marks.length && this.marks[0]!.at <= due) this.echo(this.marks.shift()!.name);
    let speech = false;
    if (this.barge.expire(due, 2000)) this.bargeMissed++;
    if (this.bargeAt !== undefined && this.speakingLeft <= 0 && due >= this.bargeAt) {
      // Barge in: this frame is the first of the caller's speech, captured from due − 20 ms.
      this.bargeAt = undefined;
      this.barge.speak(due - FRAME_MS, epochNow());
      this.waitingReply = false;
      this.speakingLeft = this.speechMs;
    }
    if (this.speakingLeft > 0) {
      speech = true;
      this.speakingLeft -= FRAME_MS;
      if (this.speakingLeft <= 0) {
        this.waitingReply = true;
        this.replyStarted = false;
        this.speechEnd = due;
      }
    } else if (!this.waitingReply && due >= this.nextSpeakAt) {
      this.speakingLeft = this.speechMs;
      speech = true;
    } else if (this.waitingReply && ((this.replyStarted && due - this.playingUntil > 300) || due - this.speechEnd > 15_000)) {
      this.waitingReply = false;
      this.bargeAt = undefined; // the reply ended before the caller's barge-in time
      this.nextSpeakAt = due + this.gapMs;
    }
    const c = this.chunk++;
    this.ws.send(`{"event":"media","streamSid":"${this.sid}","media":{"track":"inbound","chunk":"${c}","timestamp":"${Math.round(due - FRAME_MS - this.t0)}","payload":"${speech ? SPEECH : SILENCE}"}}`);
    return true;
  }

  stop(): void {
    if (this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ event: 'stop', streamSid: this.sid, stop: { accountSid: 'ACbench', callSid: this.tag } }));
      this.ws.close();
    }
  }
}

const callers: TwilioCaller[] = [];
let frames = 0;
let lateTicks = 0;
/** Per tick since the last stats: ms from the tick's due time to its last frame written. */
let burstLags: number[] = [];
let timer: NodeJS.Timeout | undefined;
/** Due time of the next tick; ticks are FRAME_MS / phases apart, tick k serves phase k mod phases. */
let due = 0;
let tickNo = 0;
let phases = 1;
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

/** True when this process's clock is overdue by more than LATE_MS: it has not been running. */
const stalled = (now: number) => now - due > LATE_MS;

/**
 * Ticks run per wake-up at most (100 ms of frames): a process that has fallen further behind
 * sends the rest on its next wake-up, after its I/O and other timers. Without the bound, a
 * starved callers' process whose catching up took longer than the frames it caught up on never
 * left the loop (at 300 calls under load 17 it never finished starting its callers).
 */
const MAX_TICKS_PER_WAKE = 5;

function tick(): void {
  const now = epochNow();
  let ran = 0;
  while (due <= now && ran++ < MAX_TICKS_PER_WAKE * phases) {
    const late = now - due > LATE_MS;
    const phase = tickNo % phases;
    for (let i = phase; i < callers.length; i += phases) {
      if (callers[i]!.frame(due)) {
        frames++;
        if (late) lateTicks++;
      }
    }
    burstLags.push(epochNow() - due);
    due += FRAME_MS / phases;
    tickNo++;
  }
  timer = setTimeout(tick, Math.max(0, due - epochNow()));
}

/** The next due time of call `i`'s phase. */
function nextDueOf(i: number): number {
  const step = FRAME_MS / phases;
  const ahead = (i % phases) - (tickNo % phases);
  return due + step * (ahead < 0 ? ahead + phases : ahead);
}

async function start(m: CallersStart): Promise<void> {
  phases = Math.max(1, Math.floor(m.phases));
  due = epochNow();
  tickNo = 0;
  tick();
  for (let i = 0; i < m.calls; i++) {
    const k = callers.length;
    callers.push(new TwilioCaller(m.url, `${m.prefix}-${i}`, m.speechMs, 1000 + Math.random() * 2000, () => nextDueOf(k)));
    await new Promise((r) => setTimeout(r, 1000 / m.calls));
  }
}

/** The burst lags' p50, p99 and max since the last stats, which start a new window. */
function burstLag(): Pick<CallerStats, 'burstLagP50Ms' | 'burstLagP99Ms' | 'burstLagMaxMs'> {
  const lags = burstLags.sort((a, b) => a - b);
  burstLags = [];
  const at = (q: number) => (lags.length ? lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]! : 0);
  return { burstLagP50Ms: at(0.5), burstLagP99Ms: at(0.99), burstLagMaxMs: lags.at(-1) ?? 0 };
}

function stats(): CallerStats {
  const sum = (k: 'agentFrames' | 'lateAgentFrames' | 'lateAgentWhileStalled' | 'answeredTurns') => callers.reduce((s, c) => s + c[k], 0);
  const cpu = process.cpuUsage();
  return {
    type: 'stats',
    callerFrames: frames,
    lateTicks,
    agentFrames: sum('agentFrames'),
    lateAgentFrames: sum('lateAgentFrames'),
    lateAgentWhileStalled: sum('lateAgentWhileStalled'),
    answeredTurns: sum('answeredTurns'),
    closedEarly: callers.filter((c) => c.closed).length,
    cpuUs: cpu.user + cpu.system,
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
    ...burstLag(),
    bargeInsNotCleared: callers.reduce((n, c) => n + c.bargeMissed, 0),
    bargeIns: callers.flatMap((c) => c.bargeDetails),
  };
}

process.on('message', (m: CallersStart | { type: 'stats' | 'stop' }) => {
  if (m.type === 'start') void start(m).then(() => process.send!({ type: 'started' }));
  else if (m.type === 'stats') {
    process.send!(stats());
    loop.reset();
  }
  else if (m.type === 'stop') {
    clearTimeout(timer);
    for (const c of callers) c.stop();
    process.send!({ type: 'stopped' }, () => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
