import { Subject } from '../rx.ts';
import { encodeWav } from '../audio/wav.ts';
import { CallerAudio } from '../transport/caller-audio.ts';
import type { Clock } from '../transport/clock.ts';
import { PacedOutput } from '../transport/paced-output.ts';
import type { CallInfo, Transport, TransportEvent } from '../transport/types.ts';

/** One move of the simulated caller. */
export type CallerStep =
  /**
   * Say a line: after the agent has finished (default), `bargeInAfterMs` into its speech, or
   * `continueAfterMs` after the caller's own last line whatever the agent does (a pause within
   * one turn: a number dictated in groups).
   */
  | { say: string; bargeInAfterMs?: number; pauseMs?: number; continueAfterMs?: number }
  /** A short non-speech sound (a cough, a hum) while the agent speaks. */
  | { sound: 'hum'; bargeInAfterMs: number; ms?: number }
  /** Press keys after the agent has finished, `gapMs` apart. */
  | { dtmf: string; pauseMs?: number; gapMs?: number }
  | { hangup: true; pauseMs?: number };

export interface CallerLine {
  text: string;
  start: number;
  end: number;
}

const TICK_MS = 20;
/**
 * A caller further behind its clock than this (a loaded machine) speaks late rather than
 * stamping audio with times already past: its frames' times stay within this of when they
 * were sent, so the recording and the latency figures agree with what the agent heard.
 */
const MAX_LAG_MS = TICK_MS;
/** Agent audio closer than this to the last piece is one span of speech. */
const SPAN_GAP_MS = 5;
/** The agent counts as speaking until this long after its last audio ended (timer jitter). */
const SPEAKING_SLACK_MS = 40;
/** A reply still open (no end mark played) after this much silence is taken as over. */
const REPLY_GAP_MS = 3000;
/**
 * An agent that does not greet: the caller speaks this long after it starts listening (as one
 * says "hello?" after a moment of silence), and the session's start-up work is done by then.
 */
const SILENT_AGENT_PAUSE_MS = 3000;

/** A vowel-like hum (harmonics of 120 Hz shaped like /a/): sounds like a voice, says nothing. */
export function hum(ms: number, rate: number): Int16Array {
  const n = Math.round((ms / 1000) * rate);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    let v = 0;
    for (let h = 1; h * 120 < Math.min(3500, rate / 2); h++) {
      const f = h * 120;
      const formant = Math.exp(-(((f - 700) / 250) ** 2)) + 0.6 * Math.exp(-(((f - 1200) / 300) ** 2)) + 0.2;
      v += (formant / h ** 0.5) * Math.sin(2 * Math.PI * f * t);
    }
    const envelope = Math.min(1, i / (0.03 * rate), (n - i) / (0.03 * rate));
    out[i] = Math.round(2500 * v * envelope);
  }
  return out;
}

/**
 * A caller on a virtual phone line: plays scripted lines (audio made beforehand, usually
 * voiced by the service) with real turn-taking against the agent's playout, and records both
 * sides with exact timing.
 */
export class SimulatedCaller implements Transport {
  readonly call: CallInfo;
  private readonly caller = new CallerAudio();
  readonly audio$ = this.caller.audio$;
  readonly events$ = new Subject<TransportEvent>();
  readonly output: PacedOutput;
  readonly lines: CallerLine[] = [];
  readonly agentSpans: { start: number; end: number }[] = [];
  /** Set when the agent hung up or transferred the call (rather than the caller hanging up). */
  endedByAgent: { hangup?: string; transfer?: string; summary?: string } | undefined;
  private readonly callerTrack: { samples: Int16Array; time: number }[] = [];
  private readonly agentTrack: { samples: Int16Array; time: number }[] = [];
  /** Clock time of the first sample of `recording()`: time 0 of the call. */
  readonly startedAt: number;
  /** Clock times of the current (or last) span of agent audio. */
  private spanStart = -Infinity;
  private spanEnd = -Infinity;
  private agentSpokeSinceLine = false;
  /**
   * Agent audio came after the last reply-end mark played: a reply is still going, even when
   * its next chunk is late (a slow synthesis on a loaded machine leaves a gap mid-reply).
   */
  private replyOpen = false;
  private agentAudioSeq = 0;
  private queueRanDry = true;
  private running = true;
  readonly done: Promise<void>;

  constructor(
    readonly inputRate: number,
    private readonly steps: CallerStep[],
    /** Audio of each `say` step, at `inputRate`, by text. */
    private readonly voiced: Map<string, Int16Array>,
    private readonly clock: Clock,
    private readonly opts: {
      maxWaitMs?: number;
      defaultPauseMs?: number;
      call?: Partial<CallInfo>;
      /**
       * Whether the agent opens the call (a greeting). When it does not, the caller's first
       * move comes a pause (its `pauseMs`, else 3 s) after the agent starts listening, instead
       * of waiting for a greeting that never comes (the whole `maxWaitMs`).
       * @default true
       */
      agentSpeaksFirst?: boolean;
    } = {},
  ) {
    this.startedAt = clock.now();
    this.call = { callId: `sim-${Math.random().toString(36).slice(2, 10)}`, provider: 'simulated', direction: 'inbound', parameters: {}, ...opts.call };
    this.output = new PacedOutput(inputRate, clock, (samples, time) => this.onAgentAudio(samples, time));
    this.output.playback$.subscribe((u) => {
      if (u.queued === 0) this.queueRanDry = true;
    });
    // The session marks the end of each reply; once that mark has played, the reply is over.
    const write = this.output.write.bind(this.output);
    this.output.write = (frame) => {
      this.agentAudioSeq++;
      this.replyOpen = true;
      write(frame);
    };
    const mark = this.output.mark.bind(this.output);
    this.output.mark = (id) => {
      const seq = this.agentAudioSeq;
      return mark(id).then(() => {
        if (seq === this.agentAudioSeq) this.replyOpen = false;
      });
    };
    const interrupt = this.output.interrupt.bind(this.output);
    this.output.interrupt = () => {
      this.replyOpen = false;
      return interrupt();
    };
    this.done = this.run();
  }

  private onAgentAudio(samples: Int16Array, time: number): void {
    this.agentTrack.push({ samples, time });
    const end = time + (samples.length / this.inputRate) * 1000;
    const rel = (t: number) => (t - this.startedAt) / 1000;
    // A late frame (a loaded machine) still continues the span while audio stays queued.
    const continues = !this.queueRanDry || time - this.spanEnd <= SPAN_GAP_MS;
    this.queueRanDry = false;
    if (!continues || !this.agentSpans.length) {
      this.spanStart = time;
      this.agentSpans.push({ start: rel(time), end: rel(end) });
    }
    this.spanEnd = end;
    this.agentSpans.at(-1)!.end = rel(end);
    this.agentSpokeSinceLine = true;
  }

  private get agentSpeaking(): boolean {
    return this.output.pending() > 0 || this.clock.now() < this.spanEnd + SPEAKING_SLACK_MS;
  }

  private emit(samples: Int16Array, due: { t: number }): void {
    if (this.clock.now() - due.t > MAX_LAG_MS) due.t = this.clock.now();
    const time = due.t;
    this.callerTrack.push({ samples, time });
    this.caller.push({ samples, sampleRate: this.inputRate, time });
  }

  /** Waits for the next frame's time (a caller behind its clock goes on at once; see MAX_LAG_MS). */
  private async next(due: { t: number }): Promise<void> {
    due.t += TICK_MS;
    const wait = due.t - this.clock.now();
    // A timer even of 0 ms costs a millisecond or more: only yield when there is no time to wait.
    if (wait > 0) await this.clock.sleep(wait);
    else await new Promise<void>((r) => setImmediate(r));
  }

  /** Waits (sending silence) until `ready()` holds. */
  private async until(ready: () => boolean, due: { t: number }): Promise<void> {
    const step = (this.inputRate * TICK_MS) / 1000;
    const give = this.clock.now() + (this.opts.maxWaitMs ?? 30_000);
    while (this.running && !ready() && this.clock.now() < give) {
      this.emit(new Int16Array(step), due);
      await this.next(due);
    }
  }

  /**
   * Exactly `ms` of silence on the line: a pause within the caller's turn. Counted in frames, not
   * waited on the clock: a caller behind its clock skips frames (MAX_LAG_MS), which would
   * shorten the pause the recognizer hears.
   */
  private async silence(ms: number, due: { t: number }): Promise<void> {
    const step = (this.inputRate * TICK_MS) / 1000;
    for (let i = 0; i < Math.round(ms / TICK_MS) && this.running; i++) {
      this.emit(new Int16Array(step), due);
      await this.next(due);
    }
  }

  private async speak(samples: Int16Array, due: { t: number }, text: string): Promise<void> {
    const step = (this.inputRate * TICK_MS) / 1000;
    // Line times are on the clock, like the agent's spans: when the agent could hear it.
    const start = this.elapsed();
    for (let at = 0; at < samples.length && this.running; at += step) {
      const frame = new Int16Array(step);
      frame.set(samples.subarray(at, at + step));
      this.emit(frame, due);
      await this.next(due);
    }
    this.lines.push({ text, start, end: this.elapsed() });
    this.agentSpokeSinceLine = false;
  }

  private async run(): Promise<void> {
    const due = { t: this.clock.now() };
    const pause = (p?: number) => p ?? this.opts.defaultPauseMs ?? 700;
    // Done: silent for the pause, and the reply's end mark played (or, for a reply that ended
    // without one, silent for REPLY_GAP_MS).
    const agentDone = (p?: number) => () => {
      const silent = this.clock.now() - this.spanEnd;
      return this.agentSpokeSinceLine && !this.agentSpeaking && silent >= pause(p) && (!this.replyOpen || silent >= Math.max(pause(p), REPLY_GAP_MS));
    };
    const agentInto = (ms: number) => () => this.agentSpeaking && this.clock.now() - this.spanStart >= ms;
    // The session subscribes to the caller's events once its sockets are open: it is listening.
    let listeningSince: number | undefined;
    const listening = (p?: number) => () => {
      if (this.events$.observed) listeningSince ??= this.clock.now();
      return listeningSince !== undefined && this.clock.now() - listeningSince >= (p ?? SILENT_AGENT_PAUSE_MS);
    };
    let first = this.opts.agentSpeaksFirst === false;
    const turn = (p?: number) => (first ? listening(p) : agentDone(p));
    for (const step of this.steps) {
      if (!this.running) break;
      if ('hangup' in step) {
        await this.until(turn(step.pauseMs), due);
        break;
      }
      if ('dtmf' in step) {
        await this.until(turn(step.pauseMs), due);
        first = false;
        await this.press(step.dtmf, step.gapMs ?? 150, due);
        continue;
      }
      const goOn = 'continueAfterMs' in step ? step.continueAfterMs : undefined;
      if (goOn !== undefined && this.lines.length) await this.silence(goOn, due);
      else await this.until(step.bargeInAfterMs !== undefined ? agentInto(step.bargeInAfterMs) : turn('pauseMs' in step ? step.pauseMs : undefined), due);
      first = false;
      if ('say' in step) {
        const audio = this.voiced.get(step.say);
        if (!audio) throw new Error(`no audio for caller line "${step.say}"`);
        await this.speak(audio, due, step.say);
      } else {
        await this.speak(hum(step.ms ?? 500, this.inputRate), due, `(${step.sound})`);
      }
    }
    if (!('hangup' in (this.steps.at(-1) ?? {}))) await this.until(agentDone(1500), due);
    // A little trailing silence so the recognizer's last turn closes, then hang up.
    const end = this.clock.now() + 600;
    await this.until(() => this.clock.now() >= end, due);
    this.callerHangsUp();
  }

  /** Key presses, with silence on the line meanwhile. */
  private async press(digits: string, gapMs: number, due: { t: number }): Promise<void> {
    for (const digit of digits) {
      if (!this.running) return;
      this.events$.next({ type: 'dtmf', digit, durationMs: 100 });
      const next = this.clock.now() + gapMs;
      await this.until(() => this.clock.now() >= next, due);
    }
    this.agentSpokeSinceLine = false;
  }

  /** Ends the call from the caller's side. */
  callerHangsUp(reason = 'caller hung up'): void {
    if (!this.running) return;
    this.running = false;
    this.events$.next({ type: 'hangup', reason });
    this.events$.complete();
    this.caller.end();
  }

  /** The agent ends the call. */
  async hangup(reason = 'agent hung up'): Promise<void> {
    this.endedByAgent ??= { hangup: reason };
    this.stop();
  }

  /** The agent hands the call over: for the simulated caller, the call ends there. */
  async transfer(target: string, opts?: { summary?: string }): Promise<void> {
    this.endedByAgent ??= { transfer: target, ...(opts?.summary ? { summary: opts.summary } : {}) };
    this.stop();
  }

  private stop(): void {
    if (!this.running) return;
    this.running = false;
    this.events$.complete();
    this.caller.end();
  }

  /** Stereo recording: caller left, agent right, on one timeline. */
  recording(): Uint8Array<ArrayBuffer> {
    const rate = this.inputRate;
    const offset = (time: number) => Math.max(0, Math.round(((time - this.startedAt) / 1000) * rate));
    const end = (track: { samples: Int16Array; time: number }[]) => track.reduce((n, f) => Math.max(n, offset(f.time) + f.samples.length), 0);
    const len = Math.max(end(this.callerTrack), end(this.agentTrack));
    const left = new Int16Array(len);
    const right = new Int16Array(len);
    // Both sides sit where the one clock put them: the caller's frames at the times they were
    // sent, the agent's where they played (silence between replies is not sent, only implied).
    for (const f of this.callerTrack) left.set(f.samples, offset(f.time));
    for (const f of this.agentTrack) right.set(f.samples, offset(f.time));
    const stereo = new Int16Array(len * 2);
    for (let i = 0; i < len; i++) {
      stereo[2 * i] = left[i]!;
      stereo[2 * i + 1] = right[i]!;
    }
    return encodeWav(stereo, this.inputRate, 2);
  }

  /** Seconds since the call started, on the caller's clock. */
  elapsed(): number {
    return (this.clock.now() - this.startedAt) / 1000;
  }
}
