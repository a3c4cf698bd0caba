import { Subject } from '../rx.ts';
import type { AudioFrame } from '../audio/frame.ts';
import { withDefaults } from '../options.ts';
import { meanLevel } from '../service/ws/listen-uplink.ts';
import type { Clock } from '../transport/clock.ts';
import type { LocalSpeech } from './local-vad.ts';

/** Options of the energy detector (`interruption.localVad: 'energy'`); see `ENERGY_VAD_DEFAULTS`. */
export interface EnergyVadOptions {
  /** Mean absolute PCM16 sample above which a frame is loud. */
  level?: number;
  /** Loud audio in a row that starts speech (ms): one click or pop is not speech. */
  minSpeechMs?: number;
  /** Quiet audio in a row that ends speech (ms). */
  hangoverMs?: number;
}

/**
 * 500 (about −36 dBFS: phone-line noise sits well below, a voice well above; the fake service
 * and the uplink's edges use the same scale), two 20 ms frames to start, 300 ms of quiet to end.
 */
export const ENERGY_VAD_DEFAULTS: Required<EnergyVadOptions> = { level: 500, minSpeechMs: 40, hangoverMs: 300 };

/**
 * Speech start and end from the caller's frame levels, in this process: a mean over each frame,
 * no model, no copy, no timer, so it costs next to nothing per frame and hears the caller start
 * talking without waiting for the service's SpeechStarted (the audio's way to the service and
 * the event's way back). It knows loud from quiet, not speech from noise: a start only pauses the
 * agent (`pauseOnSpeech`); words from the recognizer still confirm the interruption, and a
 * loud noise without words is a false alarm, as with the service's own event.
 */
export class EnergyVad {
  readonly speech$ = new Subject<LocalSpeech>();
  private readonly o: Required<EnergyVadOptions>;
  private speaking = false;
  /** Loud (before a start) or quiet (after it) audio in a row, in ms. */
  private runMs = 0;

  constructor(private readonly clock: Clock, opts: EnergyVadOptions = {}) {
    this.o = withDefaults(ENERGY_VAD_DEFAULTS, opts);
  }

  /** Nothing to load: there for the same shape as the Silero detector. */
  async start(): Promise<void> {}

  /** One caller frame, at any rate. */
  push(frame: AudioFrame): void {
    const n = frame.samples.length;
    if (!n) return;
    const ms = (n / frame.sampleRate) * 1000;
    const loud = meanLevel(frame.samples) > this.o.level;
    // Counting loud audio before a start, quiet audio after it; the other kind resets the count.
    if (loud !== this.speaking) this.runMs += ms;
    else this.runMs = 0;
    if (!this.speaking && this.runMs >= this.o.minSpeechMs) this.flip(true);
    else if (this.speaking && this.runMs >= this.o.hangoverMs) this.flip(false);
  }

  close(): void {
    this.speech$.complete();
  }

  private flip(speaking: boolean): void {
    this.speaking = speaking;
    this.runMs = 0;
    this.speech$.next({ type: speaking ? 'start' : 'end', at: this.clock.now() });
  }
}
