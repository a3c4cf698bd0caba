/**
 * What the agent's side of a media stream is told (its options, in one documented constant of
 * defaults) and where its messages go (`MediaSink`): shared by `MediaStreamOutput`
 * (`media-output.ts`) and every platform's `MediaStreamTransport` (`media-stream.ts`).
 */
import type { Clock } from '../../src/transport/clock.ts';
import type { WireMessage } from './provider.ts';
import type { ReorderOptions } from './reorder.ts';

/** Options of the shared media-stream transport. */
export interface MediaStreamOptions {
  /**
   * Agent audio the platform may hold ahead of what it is playing. Small, so a barge-in stops
   * the voice at once and nothing is sent in minute-long bursts; large enough to ride out jitter.
   * @default 160
   */
  leadMs?: number;
  /** How often a playout mark is sent on platforms that acknowledge marks. @default 100 */
  markEveryMs?: number;
  /**
   * Sent but unacknowledged audio after which sending waits for acknowledgements (a platform
   * that stopped answering marks must not be flooded).
   * @default 3000
   */
  maxUnackedMs?: number;
  reorder?: ReorderOptions;
  /**
   * Overrides the platform format's `sendEveryMs` (how often paced audio goes out: 40 sends two
   * 20 ms frames per step, in one write). Only for platforms that buffer what they are sent.
   * @default the format's, else one frame
   */
  sendEveryMs?: number;
  /** The clock that paces output (a scaled clock in tests). @default real time */
  clock?: Clock;
}

/** The defaults of `MediaStreamOptions`. */
export const MEDIA_STREAM_DEFAULTS = { leadMs: 160, markEveryMs: 100, maxUnackedMs: 3000 } as const;

/** Where the transport's messages go: a WebSocket, a TCP socket, a benchmark's counter. */
export interface MediaSink {
  /** Sends one message to the platform. */
  send(msg: WireMessage): void;
  /**
   * Messages sent between `cork()` and `uncork()` may leave in one write (a socket's
   * `cork`/`uncork`): the frames of one pacing step and their mark cost one syscall, not one each.
   */
  cork?(): void;
  /** Sends what was held since `cork()`. */
  uncork?(): void;
  /** Ends the media connection (the platform then ends the stream or the call). */
  close(reason?: string): void;
}
