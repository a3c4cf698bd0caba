import { Subject } from 'rxjs';
import type { AudioFrame } from '../../src/audio/frame.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import type { Clock } from '../../src/session/clock.ts';
import type { Transport, TransportEvent } from '../types.ts';
import { PacedOutput } from './paced-output.ts';

/** One move of the simulated caller. */
export type CallerStep =
  /** Say a line: after the agent has finished (default) or `bargeInAfterMs` into its speech. */
  | { say: string; bargeInAfterMs?: number; pauseMs?: number }
  /** A short non-speech sound (a cough, a hum) while the agent speaks. */
  | { sound: 'hum'; bargeInAfterMs: number; ms?: number }
  | { hangup: true; pauseMs?: number };

export interface CallerLine {
  text: string;
  start: number;
  end: number;
}

const TICK_MS = 20;

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
  readonly audio$ = new Subject<AudioFrame>();
  readonly events$ = new Subject<TransportEvent>();
  readonly output: PacedOutput;
  readonly lines: CallerLine[] = [];
  readonly agentSpans: { start: number; end: number }[] = [];
  private readonly callerTrack: Int16Array[] = [];
  private readonly agentTrack: Int16Array[] = [];
  private readonly startedAt: number;
  private agentSpeaking = false;
  private agentChangedAt: number;
  private agentSpokeSinceLine = false;
  private running = true;
  readonly done: Promise<void>;

  constructor(
    readonly inputRate: number,
    private readonly steps: CallerStep[],
    /** Audio of each `say` step, at `inputRate`, by text. */
    private readonly voiced: Map<string, Int16Array>,
    private readonly clock: Clock,
    private readonly opts: { maxWaitMs?: number; defaultPauseMs?: number } = {},
  ) {
    this.startedAt = clock.now();
    this.agentChangedAt = this.startedAt;
    this.output = new PacedOutput(inputRate, clock, (samples, time, speaking) => this.onAgentFrame(samples, time, speaking));
    this.done = this.run();
  }

  private onAgentFrame(samples: Int16Array, time: number, speaking: boolean): void {
    this.agentTrack.push(samples);
    const t = (time - this.startedAt) / 1000;
    if (speaking !== this.agentSpeaking) {
      this.agentSpeaking = speaking;
      this.agentChangedAt = time;
      if (speaking) {
        this.agentSpans.push({ start: t, end: t });
        this.agentSpokeSinceLine = true;
      }
    }
    if (speaking) this.agentSpans.at(-1)!.end = t + samples.length / this.inputRate;
  }

  private emit(samples: Int16Array, time: number): void {
    this.callerTrack.push(samples);
    this.audio$.next({ samples, sampleRate: this.inputRate, time });
  }

  /** Waits (sending silence) until `ready()` holds. */
  private async until(ready: () => boolean, due: { t: number }): Promise<void> {
    const step = (this.inputRate * TICK_MS) / 1000;
    const give = this.clock.now() + (this.opts.maxWaitMs ?? 30_000);
    while (this.running && !ready() && this.clock.now() < give) {
      this.emit(new Int16Array(step), due.t);
      due.t += TICK_MS;
      await this.clock.sleep(Math.max(0, due.t - this.clock.now()));
    }
  }

  private async speak(samples: Int16Array, due: { t: number }, text: string): Promise<void> {
    const step = (this.inputRate * TICK_MS) / 1000;
    const start = (due.t - this.startedAt) / 1000;
    for (let at = 0; at < samples.length && this.running; at += step) {
      const frame = new Int16Array(step);
      frame.set(samples.subarray(at, at + step));
      this.emit(frame, due.t);
      due.t += TICK_MS;
      await this.clock.sleep(Math.max(0, due.t - this.clock.now()));
    }
    this.lines.push({ text, start, end: (due.t - this.startedAt) / 1000 });
    this.agentSpokeSinceLine = false;
  }

  private async run(): Promise<void> {
    const due = { t: this.clock.now() };
    const pause = (p?: number) => p ?? this.opts.defaultPauseMs ?? 700;
    const agentDone = (p?: number) => () => this.agentSpokeSinceLine && !this.agentSpeaking && this.clock.now() - this.agentChangedAt >= pause(p);
    const agentInto = (ms: number) => () => this.agentSpeaking && this.clock.now() - this.agentChangedAt >= ms;
    for (const step of this.steps) {
      if (!this.running) break;
      if ('hangup' in step) {
        await this.until(agentDone(step.pauseMs), due);
        break;
      }
      await this.until(step.bargeInAfterMs !== undefined ? agentInto(step.bargeInAfterMs) : agentDone('pauseMs' in step ? step.pauseMs : undefined), due);
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
    this.hangup();
  }

  /** Ends the call from the caller's side. */
  hangup(): void {
    if (!this.running) return;
    this.running = false;
    this.events$.next({ type: 'hangup', reason: 'caller hung up' });
    this.events$.complete();
    this.audio$.complete();
  }

  /** Stereo recording: caller left, agent right, on one timeline. */
  recording(): Uint8Array {
    const len = Math.max(this.callerTrack.reduce((n, f) => n + f.length, 0), this.agentTrack.reduce((n, f) => n + f.length, 0));
    const left = new Int16Array(len);
    const right = new Int16Array(len);
    let at = 0;
    for (const f of this.callerTrack) left.set(f.subarray(0, len - at), at), (at += f.length);
    at = 0;
    for (const f of this.agentTrack) right.set(f.subarray(0, Math.max(0, len - at)), at), (at += f.length);
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
