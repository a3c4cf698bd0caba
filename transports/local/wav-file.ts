import { readFile, writeFile } from 'node:fs/promises';
import { Subject } from 'rxjs';
import type { AudioFrame } from '../../src/audio/frame.ts';
import { resample } from '../../src/audio/resample.ts';
import { decodeWav, encodeWav } from '../../src/audio/wav.ts';
import type { Clock } from '../../src/session/clock.ts';
import type { Transport, TransportEvent } from '../types.ts';
import { PacedOutput } from './paced-output.ts';

/**
 * A caller read from a WAV file (at its own pace, then silence for `tailMs`), and the agent's
 * audio written to another WAV file as it is played.
 */
export class WavFileTransport implements Transport {
  readonly audio$ = new Subject<AudioFrame>();
  readonly events$ = new Subject<TransportEvent>();
  readonly output: PacedOutput;
  private readonly played: Int16Array[] = [];

  private constructor(
    readonly inputRate: number,
    private readonly samples: Int16Array,
    private readonly outPath: string | undefined,
    private readonly clock: Clock,
    private readonly tailMs: number,
  ) {
    this.output = new PacedOutput(inputRate, clock, (s) => this.played.push(s));
    void this.run();
  }

  static async open(inPath: string, opts: { outPath?: string; clock: Clock; rate?: 8000 | 16000; tailMs?: number }): Promise<WavFileTransport> {
    const wav = decodeWav(await readFile(inPath));
    const rate = opts.rate ?? 16000;
    const samples = await resample(wav.samples, wav.sampleRate, rate);
    return new WavFileTransport(rate, samples, opts.outPath, opts.clock, opts.tailMs ?? 8000);
  }

  private async run(): Promise<void> {
    const step = this.inputRate / 50;
    const total = this.samples.length + Math.round((this.tailMs / 1000) * this.inputRate);
    let due = this.clock.now();
    for (let at = 0; at < total; at += step) {
      const frame = new Int16Array(step);
      if (at < this.samples.length) frame.set(this.samples.subarray(at, at + step));
      this.audio$.next({ samples: frame, sampleRate: this.inputRate, time: due });
      due += 20;
      await this.clock.sleep(Math.max(0, due - this.clock.now()));
    }
    this.events$.next({ type: 'hangup', reason: 'end of file' });
    this.events$.complete();
    this.audio$.complete();
  }

  /** Writes what the agent played. */
  async save(): Promise<void> {
    if (!this.outPath) return;
    const total = this.played.reduce((n, p) => n + p.length, 0);
    const all = new Int16Array(total);
    let at = 0;
    for (const p of this.played) all.set(p, at), (at += p.length);
    await writeFile(this.outPath, encodeWav(all, this.inputRate));
  }
}
