import { spawn, type ChildProcess } from 'node:child_process';
import { Subject } from 'rxjs';
import { CallerAudio } from '../../src/transport/caller-audio.ts';
import type { Clock } from '../../src/transport/clock.ts';
import { PacedOutput } from '../../src/transport/paced-output.ts';
import type { CallInfo, Transport, TransportEvent } from '../../src/transport/types.ts';

export const RAW = (rate: number) => ['-q', '-t', 'raw', '-r', String(rate), '-e', 'signed', '-b', '16', '-c', '1'];

/**
 * Microphone and loudspeaker through sox (`rec` and `play`). The output is paced here, 20 ms
 * at a time, so an interruption drops what the loudspeaker has not played yet.
 */
export class SoxTransport implements Transport {
  readonly call: CallInfo = { callId: `console-${process.pid}`, provider: 'sox', direction: 'inbound', parameters: {} };
  private readonly caller = new CallerAudio();
  readonly audio$ = this.caller.audio$;
  readonly events$ = new Subject<TransportEvent>();
  readonly output: PacedOutput;
  private readonly rec: ChildProcess;
  private readonly play: ChildProcess;

  constructor(
    readonly inputRate: number,
    clock: Clock,
    /** Other devices or files: any sox command lines that write / read raw PCM16 mono. */
    opts: { rec?: [string, ...string[]]; play?: [string, ...string[]] } = {},
  ) {
    const [recCmd, ...recArgs] = opts.rec ?? ['rec', ...RAW(inputRate), '-'];
    const [playCmd, ...playArgs] = opts.play ?? ['play', ...RAW(inputRate), '-'];
    this.rec = spawn(recCmd, recArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.play = spawn(playCmd, playArgs, { stdio: ['pipe', 'ignore', 'pipe'] });
    for (const p of [this.rec, this.play]) {
      p.on('error', (e: NodeJS.ErrnoException) => this.fail(e.code === 'ENOENT' ? 'sox is not installed (apt-get install sox)' : e.message));
    }
    this.output = new PacedOutput(inputRate, clock, (samples) => {
      this.play.stdin?.write(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
    });
    let carry = Buffer.alloc(0);
    this.rec.stdout!.on('data', (chunk: Buffer) => {
      const data = Buffer.concat([carry, chunk]);
      const whole = data.length - (data.length % 2);
      carry = data.subarray(whole);
      const copy = new Uint8Array(whole);
      copy.set(data.subarray(0, whole));
      this.caller.push({ samples: new Int16Array(copy.buffer), sampleRate: inputRate, time: clock.now() });
    });
    this.rec.on('close', () => this.fail('microphone closed'));
  }

  private fail(reason: string): void {
    this.caller.end();
    this.events$.next({ type: 'hangup', reason });
  }

  /** The agent ends the call: the microphone stops. */
  async hangup(): Promise<void> {
    this.rec.kill();
  }

  async close(): Promise<void> {
    this.rec.kill();
    await this.output.close();
    const exited = new Promise<void>((r) => (this.play.exitCode !== null ? r() : this.play.once('close', () => r())));
    this.play.stdin?.end();
    await exited;
  }
}
