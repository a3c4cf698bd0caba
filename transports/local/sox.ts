import { spawn, type ChildProcess } from 'node:child_process';
import { ReplaySubject } from '../../src/rx.ts';
import { CallerAudio } from '../../src/transport/caller-audio.ts';
import type { Clock } from '../../src/transport/clock.ts';
import { PacedOutput } from '../../src/transport/paced-output.ts';
import type { CallInfo, Transport, TransportEvent } from '../../src/transport/types.ts';

/** sox's arguments for headerless 16-bit mono PCM at `rate` Hz, for your own `rec`/`play` commands. */
export const RAW = (rate: number) => ['-q', '-t', 'raw', '-r', String(rate), '-e', 'signed', '-b', '16', '-c', '1'];

/** The sound device could not be opened, or stopped: the message says which and what to do. */
export class SoundDeviceError extends Error {
  override readonly name = 'SoundDeviceError';
}

export interface SoxOptions {
  /** sox device name for the microphone (AUDIODEV of `rec`, e.g. `hw:1,0`); default: the system default. */
  input?: string;
  /** sox device name for the loudspeaker (AUDIODEV of `play`). */
  output?: string;
  /** Other devices or files: any command lines that write / read raw PCM16 mono. */
  rec?: [string, ...string[]];
  play?: [string, ...string[]];
  /** How long the microphone may take to deliver its first audio before `open` gives up. @default 5000 */
  openTimeoutMs?: number;
}

/** The line of sox's stderr that says what went wrong ("rec FAIL sox: …"), without the prefix. */
export function soxReason(stderr: string): string | undefined {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const line = lines.findLast((l) => /\b(FAIL|WARN)\b/.test(l)) ?? lines.at(-1);
  return line?.replace(/^\S+ (FAIL|WARN) \S+:\s*/, '');
}

const deviceHelp =
  'Check that a microphone and loudspeaker are connected (ALSA lists them with `arecord -l` / `aplay -l`), ' +
  'pick another with --input/--output (e.g. hw:1,0; sox reads the AUDIODEV variable), ' +
  'or install sox for your sound system: apt-get install sox libsox-fmt-alsa (or libsox-fmt-pulse for PulseAudio/PipeWire).';

/**
 * Microphone and loudspeaker through sox (`rec` and `play`). The output is paced here, 20 ms
 * at a time, so an interruption drops what the loudspeaker has not played yet. A device that
 * fails or disappears ends the call with a `hangup` whose reason carries sox's own message.
 */
export class SoxTransport implements Transport {
  readonly call: CallInfo = { callId: `console-${process.pid}`, provider: 'sox', direction: 'inbound', parameters: {} };
  private readonly caller = new CallerAudio();
  readonly audio$ = this.caller.audio$;
  /** Replays to late subscribers: a device that fails while the session starts still ends it. */
  readonly events$ = new ReplaySubject<TransportEvent>();
  readonly output: PacedOutput;
  /** Resolves with the first microphone audio; rejects when a device fails before that. */
  readonly ready: Promise<void>;
  private readonly rec: ChildProcess;
  private readonly play: ChildProcess;
  private closing = false;
  private failed = false;

  /** Starts both devices and waits until the microphone delivers audio; fails at once with a clear message. */
  static async open(inputRate: number, clock: Clock, opts: SoxOptions = {}): Promise<SoxTransport> {
    const t = new SoxTransport(inputRate, clock, opts);
    try {
      await t.ready;
    } catch (err) {
      await t.close();
      throw err;
    }
    return t;
  }

  constructor(
    readonly inputRate: number,
    clock: Clock,
    opts: SoxOptions = {},
  ) {
    const [recCmd, ...recArgs] = opts.rec ?? ['rec', ...RAW(inputRate), '-'];
    const [playCmd, ...playArgs] = opts.play ?? ['play', ...RAW(inputRate), '-'];
    const env = (device?: string) => (device ? { ...process.env, AUDIODEV: device } : process.env);
    this.rec = spawn(recCmd, recArgs, { stdio: ['ignore', 'pipe', 'pipe'], env: env(opts.input) });
    this.play = spawn(playCmd, playArgs, { stdio: ['pipe', 'ignore', 'pipe'], env: env(opts.output) });
    const stderr = new Map<ChildProcess, string>([[this.rec, ''], [this.play, '']]);
    const what = (p: ChildProcess) => (p === this.rec ? `microphone (${opts.input ?? 'default device'})` : `loudspeaker (${opts.output ?? 'default device'})`);
    let settle!: { resolve: () => void; reject: (e: Error) => void };
    this.ready = new Promise((resolve, reject) => (settle = { resolve, reject }));
    this.ready.catch(() => {}); // a caller that never awaits `ready` learns of failures from events$
    let started = false;
    const lost = (p: ChildProcess, why: string) => {
      if (this.closing || this.failed) return;
      this.failed = true;
      const reason = started ? `${what(p)} stopped: ${why}` : `cannot open the ${what(p)}: ${why}. ${deviceHelp}`;
      settle.reject(new SoundDeviceError(reason));
      this.events$.next({ type: 'hangup', reason: started ? reason : `cannot open the ${what(p)}: ${why}` });
      this.caller.end();
    };
    for (const p of [this.rec, this.play]) {
      p.stderr!.on('data', (c: Buffer) => stderr.set(p, (stderr.get(p)! + c.toString()).slice(-4000)));
      p.on('error', (e: NodeJS.ErrnoException) => lost(p, e.code === 'ENOENT' ? `${p.spawnfile} is not installed (apt-get install sox)` : e.message));
      p.on('close', (code, signal) => lost(p, soxReason(stderr.get(p)!) ?? `sox exited (${signal ?? `code ${code}`})`));
    }
    // A loudspeaker that is gone makes writes fail with EPIPE; its 'close' above says why.
    this.play.stdin!.on('error', () => {});
    const timer = setTimeout(() => lost(this.rec, `no audio from the microphone in ${(opts.openTimeoutMs ?? 5000) / 1000} s`), opts.openTimeoutMs ?? 5000);
    this.ready.finally(() => clearTimeout(timer)).catch(() => {});
    this.output = new PacedOutput(inputRate, clock, (samples) => {
      // A microphone that ended (a file as microphone) does not silence the loudspeaker.
      if (this.play.stdin!.writable) this.play.stdin!.write(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
    });
    let carry = Buffer.alloc(0);
    this.rec.stdout!.on('data', (chunk: Buffer) => {
      if (!started) {
        started = true;
        settle.resolve();
      }
      const data = Buffer.concat([carry, chunk]);
      const whole = data.length - (data.length % 2);
      carry = data.subarray(whole);
      const copy = new Uint8Array(whole);
      copy.set(data.subarray(0, whole));
      this.caller.push({ samples: new Int16Array(copy.buffer), sampleRate: inputRate, time: clock.now() });
    });
  }

  /** The agent ends the call: the microphone stops. */
  async hangup(): Promise<void> {
    this.closing = true;
    this.caller.end();
    this.rec.kill();
  }

  /** Stops recording and playback and ends the call. */
  async close(): Promise<void> {
    this.closing = true;
    this.caller.end();
    this.rec.kill();
    await this.output.close();
    const exited = new Promise<void>((r) => (this.play.exitCode !== null || this.play.signalCode !== null ? r() : this.play.once('close', () => r())));
    this.play.stdin?.end();
    await exited;
  }
}
