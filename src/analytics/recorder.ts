import { tap } from '../rx.ts';
import type { AudioFrame } from '../audio/frame.ts';
import { resample } from '../audio/resample.ts';
import { encodeWav } from '../audio/wav.ts';
import type { Transport, TransportOutput } from '../transport/types.ts';

/** Options of a call recording. */
export interface RecorderOptions {
  /** Rate of the recording file (both sides are resampled to it). @default 16000 */
  sampleRate?: number;
  /**
   * Longest recording kept; audio past it is dropped (the service transcribes files up to 60
   * minutes). @default 3600
   */
  maxSeconds?: number;
}

/** Defaults of the call recorder: 16 kHz, at most an hour. */
export const RECORDER_DEFAULTS: Required<RecorderOptions> = { sampleRate: 16000, maxSeconds: 3600 };

interface Piece {
  samples: Int16Array;
  rate: number;
  /** Clock ms of the first sample. */
  at: number;
}

/** A caller frame: its arrival stamp and its position in the stream (ms of audio before it). */
interface CallerPiece {
  samples: Int16Array;
  rate: number;
  stamp: number;
  pos: number;
}

/**
 * Where an agent frame goes on the recording's timeline. Frames are stamped when they are
 * written, which jitters, and a sender that fell behind (a busy machine) catches up with a burst:
 * stamps alone would cut speech with slivers of silence, overwrite its own tail, or push it late.
 * So a frame continues the previous one unless it starts more than `gapMs` after it: a real pause.
 */
const placed = (time: number, cursor: number, gapMs: number) => (time < cursor + gapMs ? cursor : time);
/**
 * The caller's stream is continuous (every adapter sends silence too, at the line's pace), so a
 * frame can arrive late (jitter, a stall of this process or of the sender, then a catch-up burst)
 * but never before its place: each frame goes at its position in the stream plus the smallest
 * lateness of the frames that follow it within this much stream time. A hole in the stream (a
 * call on hold, lost frames) raises that lateness for good and stays a pause; a late burst does
 * not, however long the stall (laying frames end to end put a caller's line seconds early, into
 * the agent's greeting, once a starved test's far end fell 5 s behind). The window bounds how far
 * a drifting sender's clock can pull a frame.
 */
const CALLER_WINDOW_MS = 60_000;
/** The agent's audio is written as it plays; beyond jitter, a gap is silence the caller heard. */
const AGENT_GAP_MS = 60;

/** A finished recording: a stereo WAV, caller on the left, agent on the right, one timeline. */
export interface Recording {
  wav: Uint8Array;
  sampleRate: number;
  seconds: number;
  /** Clock time (ms) of the first sample: lines the recording up with the call report's times. */
  startClock?: number;
}

/**
 * Records both sides of a call by watching its transport: the caller's frames where they were
 * captured, the agent's where they were written (after the previous piece, since the output
 * queues), and an interruption drops what the agent had queued beyond that moment, as the
 * transport does. The session gets `transport`, a view of the real one with these taps.
 */
export class CallRecorder {
  readonly transport: Transport;
  private readonly caller: CallerPiece[] = [];
  /** Milliseconds of caller audio received: the next frame's position in the stream. */
  private callerPos = 0;
  private readonly agent: Piece[] = [];
  private readonly o: Required<RecorderOptions>;
  private firstSeen: number | undefined;
  /** Latest clock time seen on either side: "now" for an interruption. */
  private latest = -Infinity;
  private agentCursor = -Infinity;
  private readonly seen = new WeakSet<AudioFrame>();
  /** The caller's track as last laid out, for as many frames as it held: `seconds` then `finish()` lay it out once. */
  private laidOut: { frames: number; track: Piece[] } | undefined;

  constructor(inner: Transport, opts: RecorderOptions = {}) {
    this.o = { ...RECORDER_DEFAULTS, ...opts };
    const output = inner.output;
    const rec = this;
    const tapped: TransportOutput = {
      get sampleRate() {
        return output.sampleRate;
      },
      write(frame: AudioFrame) {
        output.write(frame);
        rec.onAgent(frame);
      },
      mark: (id) => output.mark(id),
      async interrupt() {
        const played = await output.interrupt();
        rec.onInterrupt();
        return played;
      },
      get playback$() {
        return output.playback$;
      },
      position: () => output.position(),
      close: () => output.close(),
    };
    this.transport = {
      call: inner.call,
      inputRate: inner.inputRate,
      audio$: inner.audio$.pipe(tap((f) => this.onCaller(f))),
      events$: inner.events$,
      output: tapped,
      ...(inner.hangup ? { hangup: (r?: string) => inner.hangup!(r) } : {}),
      ...(inner.transfer ? { transfer: (t: string) => inner.transfer!(t) } : {}),
      ...(inner.sendDtmf ? { sendDtmf: (d: string) => inner.sendDtmf!(d) } : {}),
    };
  }

  /** Within `maxSeconds` of the first audio seen (the cap keeps a stuck call from filling memory). */
  private fits(at: number): boolean {
    this.firstSeen ??= at;
    return at - this.firstSeen < this.o.maxSeconds * 1000;
  }

  private onCaller(f: AudioFrame): void {
    // The session may subscribe more than once (its recognizer, its local VAD): each frame counts once.
    if (this.seen.has(f)) return;
    this.seen.add(f);
    this.latest = Math.max(this.latest, f.time);
    if (this.fits(f.time)) this.caller.push({ samples: f.samples.slice(), rate: f.sampleRate, stamp: f.time, pos: this.callerPos });
    this.callerPos += (f.samples.length / f.sampleRate) * 1000;
  }

  /**
   * The caller's frames on the timeline (CALLER_WINDOW_MS): position plus the least lateness
   * (stamp − position) from each frame on through the window, by a sliding minimum from the end.
   */
  private callerTrack(): Piece[] {
    // Frames are only ever added: the same count is the same track.
    if (this.laidOut?.frames === this.caller.length) return this.laidOut.track;
    const out: Piece[] = new Array(this.caller.length);
    const mins: number[] = []; // indices, their lateness increasing from the front
    const late = (i: number) => this.caller[i]!.stamp - this.caller[i]!.pos;
    let end = this.caller.length - 1;
    for (let i = this.caller.length - 1; i >= 0; i--) {
      const p = this.caller[i]!;
      while (mins.length && late(mins.at(-1)!) >= late(i)) mins.pop();
      mins.push(i);
      while (this.caller[end]!.pos - p.pos > CALLER_WINDOW_MS) {
        if (mins[0] === end) mins.shift();
        end--;
      }
      out[i] = { samples: p.samples, rate: p.rate, at: p.pos + late(mins[0]!) };
    }
    this.laidOut = { frames: this.caller.length, track: out };
    return out;
  }

  private onAgent(f: AudioFrame): void {
    this.latest = Math.max(this.latest, f.time);
    const at = placed(f.time, this.agentCursor, AGENT_GAP_MS);
    this.agentCursor = at + (f.samples.length / f.sampleRate) * 1000;
    if (this.fits(at)) this.agent.push({ samples: f.samples.slice(), rate: f.sampleRate, at });
  }

  /** What was queued past "now" never reached the caller: cut the agent's track there. */
  private onInterrupt(): void {
    const now = this.latest;
    for (let i = this.agent.length - 1; i >= 0; i--) {
      const p = this.agent[i]!;
      if (p.at >= now) this.agent.splice(i, 1);
      else {
        const keep = Math.round(((now - p.at) / 1000) * p.rate);
        if (keep < p.samples.length) p.samples = p.samples.subarray(0, keep);
        break;
      }
    }
    this.agentCursor = now;
  }

  /**
   * Time 0 of the recording: the earlier side's first audio. (Caller frames held back until the
   * session subscribed can reach the recorder after the agent's first words, stamped earlier.)
   */
  private startOf(caller: Piece[]): number {
    return Math.min(caller[0]?.at ?? Infinity, this.agent[0]?.at ?? Infinity);
  }

  /** Seconds recorded so far (the longer side). */
  get seconds(): number {
    return this.secondsOf(this.callerTrack());
  }

  private secondsOf(caller: Piece[]): number {
    const start = this.startOf(caller);
    if (start === Infinity) return 0;
    const end = (t: Piece[]) => t.reduce((n, p) => Math.max(n, p.at + (p.samples.length / p.rate) * 1000), start);
    return (Math.max(end(caller), end(this.agent)) - start) / 1000;
  }

  /** Both sides on one timeline as a stereo WAV (silence where a side said nothing). */
  async finish(): Promise<Recording> {
    const rate = this.o.sampleRate;
    const caller = this.callerTrack();
    const start = this.startOf(caller);
    const len = Math.min(Math.ceil(this.secondsOf(caller) * rate), this.o.maxSeconds * rate);
    const left = await this.track(caller, len, start);
    const right = await this.track(this.agent, len, start);
    const stereo = new Int16Array(len * 2);
    for (let i = 0; i < len; i++) {
      stereo[2 * i] = left[i]!;
      stereo[2 * i + 1] = right[i]!;
    }
    return { wav: encodeWav(stereo, rate, 2), sampleRate: rate, seconds: len / rate, ...(start !== Infinity ? { startClock: start } : {}) };
  }

  private async track(pieces: Piece[], len: number, origin: number): Promise<Int16Array> {
    const rate = this.o.sampleRate;
    const out = new Int16Array(len);
    // Pieces are joined into runs of contiguous audio first: resampling 20 ms frames one by one
    // would click at every frame edge.
    let run: { parts: Int16Array[]; length: number; rate: number; at: number } | undefined;
    const flush = async () => {
      if (!run) return;
      const joined = new Int16Array(run.length);
      let k = 0;
      for (const part of run.parts) {
        joined.set(part, k);
        k += part.length;
      }
      const pcm = run.rate === rate ? joined : await resample(joined, run.rate, rate);
      const start = Math.round(((run.at - origin) / 1000) * rate);
      if (start < len) out.set(pcm.subarray(0, len - start), start);
      run = undefined;
    };
    for (const p of pieces) {
      const runEnd = run ? run.at + (run.length / run.rate) * 1000 : -Infinity;
      if (run && p.rate === run.rate && Math.abs(p.at - runEnd) < 2) {
        run.parts.push(p.samples);
        run.length += p.samples.length;
      } else {
        await flush();
        run = { parts: [p.samples], length: p.samples.length, rate: p.rate, at: p.at };
      }
    }
    await flush();
    return out;
  }
}
