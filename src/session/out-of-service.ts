import { ReplyPlayout } from '../pipeline/playout.ts';
import type { Clock } from '../transport/clock.ts';
import type { TransportOutput } from '../transport/types.ts';
import type { AgentVoice } from './stage-types.ts';

/** What the out-of-service line needs from the session. */
export interface OutOfServiceHost {
  output: TransportOutput;
  clock: Clock;
  /** The agent's line, as written. */
  line: string;
  /** The line as it is voiced (the spoken form). */
  spoken(text: string): string;
  warn(message: string, err: unknown): void;
  /** The line has been heard: for the report. */
  said(line: string): void;
}

/**
 * The line said when the service refuses to go on (an empty wallet, a key without access):
 * rendered while the service still answers, played once however many stages give up, and not
 * open to barge-in.
 */
export class OutOfServiceLine {
  private audio: { samples: Int16Array; sampleRate: number } | undefined;
  private preparing: Promise<void> | undefined;
  private playout: ReplyPlayout | undefined;
  private saying: Promise<void> | undefined;

  constructor(private readonly host: OutOfServiceHost) {}

  /** Renders the line now, to have it when the service stops answering. */
  prepare(voice: AgentVoice): Promise<void> {
    this.preparing ??= (async () => {
      try {
        this.audio = await voice.render(this.host.spoken(this.host.line));
      } catch (err) {
        this.host.warn('out-of-service line not prepared', err);
      }
    })();
    return this.preparing;
  }

  /**
   * Plays the line once (STT and TTS may both give up at once); resolves when it has been heard.
   * Not prepared yet (the call could not start): rendered now through `voice`, whose fixed lines
   * are kept per process, so no service call is needed when the service is down.
   */
  async say(voice: AgentVoice): Promise<void> {
    this.saying ??= this.prepare(voice).then(() => this.play());
    return this.saying;
  }

  /** The call ends: the line stops. */
  async stop(): Promise<void> {
    await this.playout?.stop();
  }

  private async play(): Promise<void> {
    if (!this.audio?.samples.length) return;
    const playout = new ReplyPlayout(this.host.output, this.host.clock);
    this.playout = playout;
    playout.beginSegment(this.host.line);
    playout.append(this.audio.samples, this.audio.sampleRate);
    playout.end();
    await playout.finished;
    this.host.said(this.host.line);
  }
}
