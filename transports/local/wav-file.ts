import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Subject } from '../../src/rx.ts';
import { openAudioStream, type AudioStream } from '../../src/audio/decode.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import { CallerAudio } from '../../src/transport/caller-audio.ts';
import type { Clock } from '../../src/transport/clock.ts';
import { PacedOutput } from '../../src/transport/paced-output.ts';
import type { CallInfo, Transport, TransportEvent } from '../../src/transport/types.ts';

export interface WavFileOptions {
  /** Where the agent's audio is written (`save()`); none: not kept. */
  outPath?: string;
  clock: Clock;
  /** Call rate: the file is decoded to it. @default 16000 */
  rate?: 8000 | 16000;
  /** Silence after the file, so the agent can answer its last words. @default 8000 */
  tailMs?: number;
}

/**
 * A caller read from an audio file (WAV, MP3, OGG/Opus, M4A… decoded as it plays, see
 * `openAudioStream`), at its own pace, then silence for `tailMs`; the agent's audio is written to
 * another WAV file as it is played. An hour-long file takes the memory of a few frames.
 *
 * @example
 * const clock = realClock();
 * const transport = await WavFileTransport.open('caller.mp3', { clock, outPath: 'out/agent.wav' });
 * const report = await new AgentSession({ client, transport, agent, clock }).run();
 */
export class WavFileTransport implements Transport {
  private readonly caller = new CallerAudio();
  readonly audio$ = this.caller.audio$;
  readonly events$ = new Subject<TransportEvent>();
  readonly output: PacedOutput;
  private readonly played: { samples: Int16Array; time: number }[] = [];
  private readonly startedAt: number;
  private stopped = false;

  private constructor(
    readonly call: CallInfo,
    readonly inputRate: number,
    private readonly audio: AudioStream,
    private readonly outPath: string | undefined,
    private readonly clock: Clock,
    private readonly tailMs: number,
  ) {
    this.startedAt = clock.now();
    this.output = new PacedOutput(inputRate, clock, (samples, time) => this.played.push({ samples, time }));
    void this.run();
  }

  /** Opens the file and decodes its first frame: a file that is not audio fails here, by name. */
  static async open(inPath: string, opts: WavFileOptions): Promise<WavFileTransport> {
    const rate = opts.rate ?? 16000;
    // Any file a user has (MP3, OGG, M4A, a 44.1 kHz stereo WAV…) becomes mono at the call's rate here.
    const audio = await openAudioStream(inPath, { rate, frameMs: 20 });
    const call: CallInfo = { callId: basename(inPath), provider: 'wav-file', direction: 'inbound', parameters: { path: inPath } };
    return new WavFileTransport(call, rate, audio, opts.outPath, opts.clock, opts.tailMs ?? 8000);
  }

  private async run(): Promise<void> {
    const step = this.inputRate / 50;
    let due = this.clock.now();
    const send = async (samples: Int16Array) => {
      this.caller.push({ samples, sampleRate: this.inputRate, time: due });
      due += 20;
      await this.clock.sleep(Math.max(0, due - this.clock.now()));
    };
    let reason = 'end of file';
    try {
      for await (const decoded of this.audio) {
        if (this.stopped) break;
        const frame = decoded.length === step ? decoded : new Int16Array(step);
        if (frame !== decoded) frame.set(decoded);
        await send(frame);
      }
      for (let at = 0; at < (this.tailMs / 1000) * this.inputRate && !this.stopped; at += step) await send(new Int16Array(step));
    } catch (err) {
      // A file that breaks part-way (truncated, corrupt) ends the call with the decoder's reason.
      reason = (err as Error).message;
      this.events$.next({ type: 'error', message: reason });
    }
    if (!this.stopped) this.events$.next({ type: 'hangup', reason });
    this.events$.complete();
    this.caller.end();
  }

  /** The agent ends the call: reading the file stops (and its decoder with it). */
  async hangup(): Promise<void> {
    this.stopped = true;
    await this.audio.close();
  }

  /** Stops reading the file and the paced output; nothing is left running. */
  async close(): Promise<void> {
    await this.hangup();
    await this.output.close();
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
