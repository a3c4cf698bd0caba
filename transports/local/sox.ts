import { spawn, type ChildProcess } from 'node:child_process';
import { Subject } from 'rxjs';
import type { AudioFrame } from '../../src/audio/frame.ts';
import type { Clock } from '../../src/session/clock.ts';
import type { Transport, TransportEvent } from '../types.ts';
import { PacedOutput } from './paced-output.ts';

const RAW = (rate: number) => ['-q', '-t', 'raw', '-r', String(rate), '-e', 'signed', '-b', '16', '-c', '1'];

/**
 * Microphone and loudspeaker through sox (`rec` and `play`). The output is paced here, 20 ms
 * at a time, so an interruption drops what the loudspeaker has not played yet.
 */
export class SoxTransport implements Transport {
  readonly audio$ = new Subject<AudioFrame>();
  readonly events$ = new Subject<TransportEvent>();
  readonly output: PacedOutput;
  private readonly rec: ChildProcess;
  private readonly play: ChildProcess;

  constructor(readonly inputRate: number, clock: Clock) {
    this.rec = spawn('rec', [...RAW(inputRate), '-'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.play = spawn('play', [...RAW(inputRate), '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    for (const p of [this.rec, this.play]) {
      p.on('error', (e: NodeJS.ErrnoException) => this.fail(e.code === 'ENOENT' ? 'sox is not installed (apt-get install sox)' : e.message));
    }
    this.output = new PacedOutput(inputRate, clock, (samples, _t, speaking) => {
      if (speaking) this.play.stdin?.write(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
    });
    let carry = Buffer.alloc(0);
    this.rec.stdout!.on('data', (chunk: Buffer) => {
      const data = Buffer.concat([carry, chunk]);
      const whole = data.length - (data.length % 2);
      carry = data.subarray(whole);
      const copy = new Uint8Array(whole);
      copy.set(data.subarray(0, whole));
      this.audio$.next({ samples: new Int16Array(copy.buffer), sampleRate: inputRate, time: clock.now() });
    });
    this.rec.on('close', () => this.fail('microphone closed'));
  }

  private fail(reason: string): void {
    this.events$.next({ type: 'hangup', reason });
  }

  async close(): Promise<void> {
    this.rec.kill();
    this.play.stdin?.end();
    await this.output.close();
  }
}
