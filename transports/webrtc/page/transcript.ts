import type { CallEvent } from '../protocol.ts';

/** One caption line: a side's turn, growing while it is spoken. */
export interface Line {
  who: 'user' | 'agent' | 'supervisor';
  text: string;
  /** Still being recognized (caller) or spoken (agent). */
  open: boolean;
  /** The agent was cut off; `text` is what the caller heard. */
  cut?: boolean;
  /** Seconds since the page joined. */
  at: number;
}

/**
 * The call's captions as data, from the session's events: the caller's interim words become
 * their turn when it is decided; the agent's sentences gather into its turn and are trimmed to
 * what the caller heard if it was cut off. Pure, so the page and the tests share it.
 */
export class Transcript {
  readonly lines: Line[] = [];
  readonly latencies: number[] = [];

  constructor(private readonly now: () => number = () => 0) {}

  private open(who: Line['who']): Line | undefined {
    for (let i = this.lines.length - 1; i >= 0; i--) {
      const l = this.lines[i]!;
      if (l.who === who && l.open) return l;
    }
    return undefined;
  }

  apply(e: CallEvent): void {
    if (e.type === 'transcript') {
      const l = this.open('user') ?? this.push('user');
      l.text = e.text;
    } else if (e.type === 'user_turn') {
      const l = this.open('user') ?? this.push('user');
      l.text = e.text;
      l.open = false;
    } else if (e.type === 'agent_chunk') {
      const l = this.open('agent') ?? this.push('agent');
      l.text = l.text ? `${l.text} ${e.text}` : e.text;
    } else if (e.type === 'agent_turn') {
      const l = this.open('agent') ?? this.push('agent');
      l.text = e.interrupted ? e.heardText : e.text;
      l.cut = e.interrupted;
      l.open = false;
    } else if (e.type === 'metrics' && e.metrics.voiceToVoiceMs !== undefined) {
      this.latencies.push(Math.round(e.metrics.voiceToVoiceMs));
    }
  }

  /** A line a person said in the room (a supervisor after taking over). */
  note(who: Line['who'], text: string): void {
    this.push(who).text = text;
    this.lines[this.lines.length - 1]!.open = false;
  }

  private push(who: Line['who']): Line {
    const l: Line = { who, text: '', open: true, at: this.now() };
    this.lines.push(l);
    return l;
  }

  /** Plain text for download: one line per turn, with its time. */
  toText(labels: Record<Line['who'], string>): string {
    return this.lines
      .filter((l) => l.text)
      .map((l) => `[${formatTime(l.at)}] ${labels[l.who]}: ${l.text}${l.cut ? ' …' : ''}`)
      .join('\n')
      .concat('\n');
  }
}

const formatTime = (s: number) => `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
