/**
 * When a /listen connection that stays open is dead, decided from what was sent and heard (pure:
 * times are passed in, so it is tested on a virtual clock; ListenSocket drives it with a timer).
 *
 * The service sends events for speech only: in a silent stretch, with audio streaming, it sends
 * nothing at all (no KeepAlive, no empty Results:
 * docs/service-behaviour.md#nothing-comes-back-in-silence), and a phone line streams silence
 * for as long as the caller says nothing. So "no event back" is counted in seconds of
 * caller *speech* sent (audio at speech level) since the last event, not in time: a long silence
 * never reconnects, while a caller talking to a backend that is gone is noticed after
 * `eventTimeoutMs` of their speech (and replayed on the new connection). Between events, a dead
 * path is found by WebSocket ping/pong at any time, silence or not.
 */
export interface ListenLiveness {
  /** WebSocket ping this often. 0 = never. @default 5000 */
  pingIntervalMs: number;
  /**
   * Dead when a ping has no pong within this, confirmed at the next check (a quarter of the
   * shortest period later: a pong that came during a stall is read after the timer that finds
   * it overdue); time this process spent starved of CPU does not count. @default 5000
   */
  pongTimeoutMs: number;
  /**
   * Dead when this many milliseconds of caller speech (audio at `speechRms` or above) have been
   * sent with no event back: a proxy may answer pings for a backend that is gone. Silence does
   * not count. 0 = never. @default 10_000
   */
  eventTimeoutMs: number;
  /**
   * RMS (PCM16) from which sent audio counts as speech for `eventTimeoutMs`: about -40 dBFS,
   * above a phone line's idle noise, below speech at any usable level. @default 300
   */
  speechRms: number;
}

/** Default liveness checks of `/listen`: ping every 5 s, a dead path after 5 s without pong or 10 s of speech with no event. */
export const DEFAULT_LIVENESS: ListenLiveness = { pingIntervalMs: 5000, pongTimeoutMs: 5000, eventTimeoutMs: 10_000, speechRms: 300 };

export type LivenessAction = { type: 'ping' } | { type: 'dead'; reason: string } | undefined;

export class ListenWatchdog {
  private pingSentAt: number | undefined;
  private lastPingAt: number;
  /** The pong was overdue at the last tick: dead if it still is at the next one. */
  private pongOverdue = false;
  /** Milliseconds of speech sent since the last event from the server. */
  private unansweredSpeechMs = 0;

  constructor(
    private readonly o: ListenLiveness,
    now: number,
  ) {
    this.lastPingAt = now;
  }

  /** Whether there is anything to watch (the socket runs no timer otherwise). */
  get enabled(): boolean {
    return this.o.pingIntervalMs > 0 || this.o.eventTimeoutMs > 0;
  }

  /** How often `tick` should run. */
  get periodMs(): number {
    const periods = [this.o.pingIntervalMs, this.o.pongTimeoutMs, this.o.eventTimeoutMs].filter((v) => v > 0);
    return Math.max(10, Math.min(...periods) / 4);
  }

  /** Audio sent at `sampleRate`: PCM16 samples, or their little-endian bytes. */
  sent(pcm: Int16Array | Uint8Array, sampleRate: number): void {
    if (!this.o.eventTimeoutMs) return;
    const samples = pcm instanceof Int16Array ? pcm.length : pcm.byteLength >> 1;
    if (!samples) return;
    // Compared as sums of squares: no square root, and no view or copy of the frame (this runs
    // for every frame of every call; a DataView per frame was a steady share of the allocations).
    const floor = this.o.speechRms * this.o.speechRms * samples;
    const sum = pcm instanceof Int16Array ? sumOfSquares(pcm) : sumOfSquaresLE(pcm, samples);
    if (sum >= floor) this.unansweredSpeechMs += (samples / sampleRate) * 1000;
  }

  /** Any message from the server. */
  heard(): void {
    this.unansweredSpeechMs = 0;
  }

  pong(): void {
    this.pingSentAt = undefined;
    this.pongOverdue = false;
  }

  /**
   * One check at `now`, in run time (src/service/run-time.ts): a stall of this process is not
   * time the peer failed to answer in.
   */
  tick(now: number, open: boolean): LivenessAction {
    const { pingIntervalMs, pongTimeoutMs, eventTimeoutMs } = this.o;
    if (this.pingSentAt !== undefined && now - this.pingSentAt > pongTimeoutMs) {
      // Overdue: decided at the next tick, after the socket's pending input has been read.
      if (this.pongOverdue) return { type: 'dead', reason: `no pong within ${pongTimeoutMs} ms` };
      this.pongOverdue = true;
      return undefined;
    }
    if (eventTimeoutMs && this.unansweredSpeechMs > eventTimeoutMs) {
      return { type: 'dead', reason: `${(this.unansweredSpeechMs / 1000).toFixed(1)} s of speech sent with no event back` };
    }
    if (pingIntervalMs && open && this.pingSentAt === undefined && now - this.lastPingAt >= pingIntervalMs) {
      this.lastPingAt = now;
      this.pingSentAt = now;
      return { type: 'ping' };
    }
    return undefined;
  }
}

function sumOfSquares(pcm: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!;
  return sum;
}

/** The same over PCM16 little-endian bytes, read in place (they may start at an odd offset). */
function sumOfSquaresLE(bytes: Uint8Array, samples: number): number {
  let sum = 0;
  for (let i = 0, j = 0; i < samples; i++, j += 2) {
    const s = ((bytes[j]! | (bytes[j + 1]! << 8)) << 16) >> 16;
    sum += s * s;
  }
  return sum;
}
