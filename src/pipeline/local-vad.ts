import { Subject } from 'rxjs';
import type { AudioFrame } from '../audio/frame.ts';
import { Endpointer } from '../audio/endpointer.ts';
import { createResampler, type StreamResampler } from '../audio/resample.ts';
import type { SileroStream } from '../audio/silero-vad.ts';
import type { Clock } from '../transport/clock.ts';

export type LocalSpeech = { type: 'start' | 'end'; at: number };

/**
 * Silero VAD on the caller's audio, in this process: it hears the caller start talking a
 * network round trip before the service's SpeechStarted does, which makes barge-in quicker.
 */
export class LocalVad {
  readonly speech$ = new Subject<LocalSpeech>();
  private vad: SileroStream | undefined;
  private resampler: StreamResampler | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly endpointer = new Endpointer({ minSpeechMs: 150, endpointingMs: 300 });

  constructor(private readonly inputRate: number, private readonly clock: Clock) {}

  async start(): Promise<void> {
    // onnxruntime (hundreds of MB) is loaded only by calls that turn local VAD on.
    const { SileroStream } = await import('../audio/silero-vad.ts');
    [this.vad, this.resampler] = await Promise.all([SileroStream.create(), createResampler(this.inputRate, 16000)]);
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
