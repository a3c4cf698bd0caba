import { withDefaults } from '../options.ts';
import type { ListenEvent } from '../service/ws/listen-events.ts';

/**
 * Decides when the caller has finished a turn. Pure: fed the socket's events and the time,
 * so tests run it on virtual time.
 *
 * A turn ends on a final that is also speech_final; UtteranceEnd ends it when the final
 * lacked that flag. A forced split (is_final without speech_final, after a minute of speech)
 * only adds a fragment. An optional extra delay lets the caller go on: new speech within it
 * cancels the decision and the fragments keep accumulating.
 */
export interface TurnOptions {
  /**
   * Extra wait after the end of a turn before replying; speech within it keeps the turn open.
   * @default 0
   */
  endDelayMs?: number;
}

/** Defaults of turn detection: no wait after the service's end of speech. */
export const TURN_DEFAULTS: Required<TurnOptions> = { endDelayMs: 0 };

export interface UserTurn {
  text: string;
  /** Stream seconds of the last word, when known. */
  lastWordEnd: number | undefined;
  /** Stream seconds the turn's first recognized word started, when known. */
  firstWordStart?: number;
  /** Time the final transcript arrived. */
  finalAt: number;
  /** Time the turn was decided. */
  decidedAt: number;
}

export class TurnDetector {
  private fragments: string[] = [];
  private lastWordEnd: number | undefined;
  private firstWordStart: number | undefined;
  private finalAt = 0;
  private readyAt: number | undefined;
  private readonly delay: number;

  constructor(opts: TurnOptions = {}) {
    this.delay = withDefaults(TURN_DEFAULTS, opts).endDelayMs;
  }

  /** Clock time at which `tick` will decide a pending turn, if one is pending. */
  get deadline(): number | undefined {
    return this.readyAt;
  }

  /** Words heard in the turn so far (finals only). */
  get pendingText(): string {
    return this.fragments.join(' ');
  }

  onEvent(e: ListenEvent, now: number): UserTurn[] {
    switch (e.type) {
      case 'SpeechStarted':
        this.readyAt = undefined;
        break;
      case 'Results':
        if (!e.is_final) {
          if (e.transcript) this.readyAt = undefined;
          break;
        }
        if (e.transcript) {
          this.fragments.push(e.transcript);
          this.finalAt = now;
          const last = e.words.at(-1);
          if (last) this.lastWordEnd = last.end;
          this.firstWordStart ??= e.words[0]?.start;
        }
        if (e.speech_final) this.readyAt = now + this.delay;
        break;
      case 'UtteranceEnd':
        if (this.fragments.length && this.readyAt === undefined) this.readyAt = now + this.delay;
        this.lastWordEnd ??= e.last_word_end;
        if (this.lastWordEnd !== undefined) this.lastWordEnd = Math.max(this.lastWordEnd, e.last_word_end);
        break;
      default:
        break;
    }
    return this.tick(now);
  }

  tick(now: number): UserTurn[] {
    if (this.readyAt === undefined || now < this.readyAt) return [];
    const text = this.fragments.join(' ').trim();
    const turn: UserTurn = { text, lastWordEnd: this.lastWordEnd, finalAt: this.finalAt, decidedAt: now };
    if (this.firstWordStart !== undefined) turn.firstWordStart = this.firstWordStart;
    this.fragments = [];
    this.lastWordEnd = undefined;
    this.firstWordStart = undefined;
    this.readyAt = undefined;
    // A turn without words (noise, an unrecognized sound) is not a turn.
    return text ? [turn] : [];
  }
}
