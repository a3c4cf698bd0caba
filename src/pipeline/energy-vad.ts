import { Subject } from '../rx.ts';
import type { AudioFrame } from '../audio/frame.ts';
import { withDefaults } from '../options.ts';
import { meanLevel } from '../service/ws/listen-uplink.ts';
import type { Clock } from '../transport/clock.ts';
import type { CallerVad, LocalSpeech } from './local-vad.ts';

/** Options of the energy detector (`interruption.localVad: 'energy'`); see `ENERGY_VAD_DEFAULTS`. */
export interface EnergyVadOptions {
  /** Mean absolute PCM16 sample a frame must exceed to be loud, whatever the noise floor. */
  level?: number;
  /** Loud audio in a row that starts speech (ms): one click or pop is not speech. */
  minSpeechMs?: number;
  /** Quiet audio in a row that ends speech (ms). */
  hangoverMs?: number;
  /** Follow the line's noise floor (`false`: the fixed `level` alone, the detector of before). */
  adaptive?: boolean;
  /** How far above the noise floor a frame must be to be loud (dB). */
  marginDb?: number;
  /** Time constant of the floor climbing towards louder audio (ms): steady noise becomes the floor. */
  riseMs?: number;
  /** Time constant of the floor falling towards quieter audio (ms). */
  fallMs?: number;
  /**
   * The agent's voice comes back down the line at least this far below what was sent (dB): while
   * the agent speaks, a caller frame must also exceed the agent's loudest recent frame minus this.
   */
  echoReturnLossDb?: number;
  /** How far back the agent's frames count (ms): the playout's lead plus the line's echo path. */
  echoWindowMs?: number;
}

/**
 * 500 (about −36 dBFS) as an absolute minimum; 12 dB above a floor that follows steady noise
 * (time constant 2 s) and falls back within a pause (100 ms); two 20 ms frames to start, 300 ms of quiet
 * to end; echo assumed at least 12 dB down, within 600 ms of the agent's frame being written
 * (200 ms of playout lead, the platform's buffer and the line). Figures: docs/performance.md.
 */
export const ENERGY_VAD_DEFAULTS: Required<EnergyVadOptions> = {
  level: 500,
  minSpeechMs: 40,
  hangoverMs: 300,
  adaptive: true,
  marginDb: 12,
  riseMs: 2000,
  fallMs: 100,
  echoReturnLossDb: 12,
  echoWindowMs: 600,
};

const dB = (level: number) => 20 * Math.log10(Math.max(level, 1));

/**
 * Speech start and end from the caller's frame levels, in this process: a mean over each frame,
 * no model, no copy, no timer, so it costs next to nothing per frame and hears the caller start
 * talking without waiting for the service's SpeechStarted (the audio's way to the service and
 * the event's way back). Loud means above an absolute level, above the line's noise floor by a
 * margin, and above what the agent's own echo could be; it still cannot tell speech from a
 * sudden noise: a start only pauses the agent (`pauseOnSpeech`) and the recognizer's words
 * confirm the interruption.
 */
export class EnergyVad implements CallerVad {
  readonly speech$ = new Subject<LocalSpeech>();
  private readonly o: Required<EnergyVadOptions>;
  private speaking = false;
  /** Loud (before a start) or quiet (after it) audio in a row, in ms. */
  private runMs = 0;
  /** The noise floor (dB of the mean level); set by the first frame. */
  private floor: number | undefined;
  /** The agent's recent frames: clock time written and level (dB), oldest first. */
  private agent: { at: number; db: number }[] = [];

  constructor(private readonly clock: Clock, opts: EnergyVadOptions = {}) {
    this.o = withDefaults(ENERGY_VAD_DEFAULTS, opts);
    for (const k of ['level', 'minSpeechMs', 'hangoverMs', 'marginDb', 'riseMs', 'fallMs', 'echoReturnLossDb', 'echoWindowMs'] as const) {
      if (!(this.o[k] >= 0)) throw new Error(`energyVad.${k} must be a number ≥ 0, got ${String(this.o[k])}`);
    }
  }

  /** Nothing to load: there for the same shape as the Silero detector. */
  async start(): Promise<void> {}

  /** One caller frame, at any rate. */
  push(frame: AudioFrame): void {
    const n = frame.samples.length;
    if (!n) return;
    const ms = (n / frame.sampleRate) * 1000;
    const level = meanLevel(frame.samples);
    // The floor moves on every frame, quiet ones above all: not behind a short-circuit.
    const overFloor = !this.o.adaptive || this.aboveFloor(dB(level), ms);
    const loud = level > this.o.level && overFloor && this.aboveEcho(dB(level));
    // Counting loud audio before a start, quiet audio after it; the other kind resets the count.
    if (loud !== this.speaking) this.runMs += ms;
    else this.runMs = 0;
    if (!this.speaking && this.runMs >= this.o.minSpeechMs) this.flip(true);
    else if (this.speaking && this.runMs >= this.o.hangoverMs) this.flip(false);
  }

  /** One frame of the agent's voice as it is written to the line: its echo is not the caller. */
  playing(frame: AudioFrame): void {
    if (!frame.samples.length) return;
    const now = this.clock.now();
    this.forget(now);
    this.agent.push({ at: now, db: dB(meanLevel(frame.samples)) });
  }

  close(): void {
    this.speech$.complete();
  }

  /** Compares with the floor, then moves it: in speech too, so a noise that starts and stays ends the speech. */
  private aboveFloor(db: number, ms: number): boolean {
    const floor = (this.floor ??= db);
    // In dB, a step of the distance: a 20 dB jump is mostly climbed in a few seconds, a breath-long pause pulls it down.
    const tau = db > floor ? this.o.riseMs : this.o.fallMs;
    this.floor = floor + (db - floor) * Math.min(1, ms / Math.max(tau, 1));
    return db > floor + this.o.marginDb;
  }

  private aboveEcho(db: number): boolean {
    this.forget(this.clock.now());
    let loudest = -Infinity;
    for (const a of this.agent) loudest = Math.max(loudest, a.db);
    return db > loudest - this.o.echoReturnLossDb;
  }

  private forget(now: number): void {
    let k = 0;
    while (k < this.agent.length && this.agent[k]!.at < now - this.o.echoWindowMs) k++;
    if (k) this.agent.splice(0, k);
  }

  private flip(speaking: boolean): void {
    this.speaking = speaking;
    this.runMs = 0;
    this.speech$.next({ type: speaking ? 'start' : 'end', at: this.clock.now() });
  }
}
