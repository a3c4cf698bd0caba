import { ReplyPlayout } from '../pipeline/playout.ts';
import type { Clock } from '../transport/clock.ts';
import type { TransportOutput } from '../transport/types.ts';
import type { FixedLineKind, SessionEvent } from './events.ts';
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
  /** The line has been heard (as `kind`): for the report. */
  said(line: string, kind: FixedLineKind): void;
  /** The session's events: the line is told as a reply of its own (`reply_started`, `agent_chunk`, `agent_turn`). */
  emit(e: SessionEvent): void;
  /** The next reply number of the call (the line's, as any reply's). */
  nextReply(): number;
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
  async say(voice: AgentVoice, kind: FixedLineKind): Promise<void> {
    this.saying ??= this.prepare(voice).then(() => this.play(kind));
    return this.saying;
  }

  /** The call ends: the line stops. */
  async stop(): Promise<void> {
    await this.playout?.stop();
  }

  private async play(kind: FixedLineKind): Promise<void> {
    if (!this.audio?.samples.length) return;
    const { host } = this;
    const playout = new ReplyPlayout(host.output, host.clock);
    this.playout = playout;
    // Told as any line the caller hears (the events, the trace's reply span, the live view), so an
    // operator sees the call's last words: before, only the report had them.
    const reply = host.nextReply();
    host.emit({ type: 'reply_started', reply, line: kind });
    host.emit({ type: 'agent_chunk', text: host.line, reply });
    playout.beginSegment(host.line);
    playout.append(this.audio.samples, this.audio.sampleRate);
    playout.end();
    await playout.finished;
    host.said(host.line, kind);
    host.emit({ type: 'agent_turn', text: host.line, heardText: host.line, interrupted: false, reply, line: kind });
  }
}
