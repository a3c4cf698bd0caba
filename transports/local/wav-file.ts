import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Subject } from 'rxjs';
import { readAudioFile } from '../../src/audio/decode.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import { CallerAudio } from '../../src/transport/caller-audio.ts';
import type { Clock } from '../../src/transport/clock.ts';
import { PacedOutput } from '../../src/transport/paced-output.ts';
import type { CallInfo, Transport, TransportEvent } from '../../src/transport/types.ts';

/**
 * A caller read from an audio file (WAV, MP3, OGG, M4A… through ffmpeg) (at its own pace, then silence for `tailMs`), and the agent's
 * audio written to another WAV file as it is played.
 */
export class WavFileTransport implements Transport {
  private readonly caller = new CallerAudio();
  readonly audio$ = this.caller.audio$;
  readonly events$ = new Subject<TransportEvent>();
  readonly output: PacedOutput;
  private readonly played: { samples: Int16Array; time: number }[] = [];
  private readonly startedAt: number;

  private constructor(
    readonly call: CallInfo,
    readonly inputRate: number,
    private readonly samples: Int16Array,
    private readonly outPath: string | undefined,
    private readonly clock: Clock,
    private readonly tailMs: number,
  ) {
    this.startedAt = clock.now();
    this.output = new PacedOutput(inputRate, clock, (samples, time) => this.played.push({ samples, time }));
    void this.run();
  }

  static async open(inPath: string, opts: { outPath?: string; clock: Clock; rate?: 8000 | 16000; tailMs?: number }): Promise<WavFileTransport> {
    const rate = opts.rate ?? 16000;
    // Any file a user has (MP3, OGG, M4A, a 44.1 kHz stereo WAV…) becomes mono at the call's rate here.
    const { samples } = await readAudioFile(inPath, rate);
    const call: CallInfo = { callId: basename(inPath), provider: 'wav-file', direction: 'inbound', parameters: { path: inPath } };
    return new WavFileTransport(call, rate, samples, opts.outPath, opts.clock, opts.tailMs ?? 8000);
  }

  private async run(): Promise<void> {
    const step = this.inputRate / 50;
    const total = this.samples.length + Math.round((this.tailMs / 1000) * this.inputRate);
    let due = this.clock.now();
    for (let at = 0; at < total; at += step) {
      const frame = new Int16Array(step);
      if (at < this.samples.length) frame.set(this.samples.subarray(at, at + step));
      this.caller.push({ samples: frame, sampleRate: this.inputRate, time: due });
      due += 20;
      await this.clock.sleep(Math.max(0, due - this.clock.now()));
    }
    this.events$.next({ type: 'hangup', reason: 'end of file' });
    this.events$.complete();
    this.caller.end();
  }

  /** Writes what the agent played, each piece at its time since the call started. */
  async save(): Promise<void> {
    if (!this.outPath) return;
    const offset = (time: number) => Math.max(0, Math.round(((time - this.startedAt) / 1000) * this.inputRate));
    const all = new Int16Array(this.played.reduce((n, p) => Math.max(n, offset(p.time) + p.samples.length), 0));
    for (const p of this.played) all.set(p.samples, offset(p.time));
    await writeFile(this.outPath, encodeWav(all, this.inputRate));
  }
}
