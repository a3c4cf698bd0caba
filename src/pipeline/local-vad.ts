import { Subject } from '../rx.ts';
import type { AudioFrame } from '../audio/frame.ts';
import { Endpointer } from '../audio/endpointer.ts';
import { createResampler, type StreamResampler } from '../audio/resample.ts';
import type { SileroStream } from '../audio/silero-vad.ts';
import type { Clock } from '../transport/clock.ts';
import { EnergyVad } from './energy-vad.ts';
import type { InterruptionOptions } from './interruption.ts';

export type LocalSpeech = { type: 'start' | 'end'; at: number };

/** A detector of the caller's speech in this process (Silero or frame energy). */
export interface CallerVad {
  /** Speech starts and ends, stamped on the session's clock. */
  readonly speech$: Subject<LocalSpeech>;
  /** Loads what the detector needs (before the first frame). */
  start(): Promise<void>;
  /** One caller frame. */
  push(frame: AudioFrame): void;
  /** One frame of the agent's voice as it is written to the line, for a detector that tells its echo from the caller. */
  playing?(frame: AudioFrame): void;
  /** Frees the detector; `speech$` completes. */
  close(): void;
}

/** The detector `interruption.localVad` asks for, or none. */
export function createLocalVad(o: InterruptionOptions | undefined, inputRate: number, clock: Clock): CallerVad | undefined {
  if (!o?.localVad) return undefined;
  return o.localVad === 'energy' ? new EnergyVad(clock, o.energyVad) : new LocalVad(inputRate, clock);
}

/**
 * Silero VAD on the caller's audio, in this process: it hears the caller start talking a
 * network round trip before the service's SpeechStarted does, which makes barge-in quicker.
 */
export class LocalVad implements CallerVad {
  readonly speech$ = new Subject<LocalSpeech>();
  private vad: SileroStream | undefined;
  private resampler: StreamResampler | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly endpointer = new Endpointer({ minSpeechMs: 150, endpointingMs: 300 });

  constructor(private readonly inputRate: number, private readonly clock: Clock) {}

  async start(): Promise<void> {
    // onnxruntime (hundreds of MB) is loaded only by calls that turn local VAD on.
    const { SileroStream, DIGITAL_SILENCE_RESTART_WINDOWS } = await import('../audio/silero-vad.ts');
    // A caller's digital silence (a muted microphone, a silent leg) costs no model runs past a second.
    const vad = SileroStream.create({ restartAfterZeroWindows: DIGITAL_SILENCE_RESTART_WINDOWS });
    [this.vad, this.resampler] = await Promise.all([vad, createResampler(this.inputRate, 16000)]);
  }

  push(frame: AudioFrame): void {
    if (!this.vad || !this.resampler) return;
    const pcm = this.resampler.push(frame.samples);
    this.chain = this.chain.then(async () => {
      for (const w of await this.vad!.push(pcm)) {
        for (const e of this.endpointer.push(w.p, w.start, w.end)) this.speech$.next({ type: e.type, at: this.clock.now() });
      }
    });
  }

  close(): void {
    this.resampler?.close();
    this.speech$.complete();
  }
}
