import { withDefaults } from '../options.ts';
import type { ListenEvent } from '../service/ws/listen-events.ts';
import { BACKCHANNELS, backchannelMatcher } from './backchannel.ts';
import type { EnergyVadOptions } from './energy-vad.ts';

/**
 * Barge-in decisions while the agent speaks. Pure, for virtual-time tests.
 *
 * Speech starting pauses the agent (if `pauseOnSpeech`); words (at least `minWords`) confirm
 * an interruption; speech that ends without words, or no words within
 * `falseInterruptionTimeoutMs`, is a false alarm (a cough, a door) and the agent resumes.
 * Optionally, speech lasting `minSpeechMs` counts even before words arrive. A backchannel
 * ("آه", "إيه", "تمام": `backchannels`) is no words: alone, it is a false alarm too.
 */
export interface InterruptionOptions {
  /**
   * The caller can cut the agent off.
   * @default true
   */
  enabled?: boolean;
  /**
   * Also hear speech start in this process, before the service's SpeechStarted arrives: `'energy'`
   * (frame levels, next to no CPU: see `energyVad`) or `'silero'` (`true`: the Silero model,
   * loads onnxruntime for the call, far more CPU per call). Either only pauses the agent; words
   * from the recognizer still confirm the interruption.
   * @default false
   */
  localVad?: boolean | 'silero' | 'energy';
  /** The energy detector's level, noise floor, echo and durations, with `localVad: 'energy'`. @default ENERGY_VAD_DEFAULTS */
  energyVad?: EnergyVadOptions;
  /**
   * Words that confirm an interruption.
   * @default 1
   */
  minWords?: number;
  /**
   * Words a caller says over the agent to show they follow ("آه", "إيه", "نعم", "تمام"): a
   * transcript of only these confirms no interruption (the agent resumes) and, said while the
   * agent goes on, is no turn. `false` (or `[]`): every word counts, as before.
   * @default BACKCHANNELS
   */
  backchannels?: readonly string[] | false;
  /**
   * Speech this long confirms an interruption before words arrive.
   * @default undefined (words only)
   */
  minSpeechMs?: number;
  /**
   * Pause the agent as soon as speech starts (resumed on a false alarm).
   * @default true
   */
  pauseOnSpeech?: boolean;
  /**
   * Speech without words for this long is a false alarm.
   * @default 2000
   */
  falseInterruptionTimeoutMs?: number;
}

/** Defaults of barge-in: how much caller speech, and how many words, interrupt the agent. */
export const INTERRUPTION_DEFAULTS: Required<Omit<InterruptionOptions, 'minSpeechMs' | 'energyVad'>> & Pick<InterruptionOptions, 'minSpeechMs' | 'energyVad'> = {
  enabled: true,
  localVad: false,
  energyVad: undefined,
  minWords: 1,
  backchannels: BACKCHANNELS,
  minSpeechMs: undefined,
  pauseOnSpeech: true,
  falseInterruptionTimeoutMs: 2000,
};

/** What caller speech over the agent does: `pause` it, `interrupt` it (a barge-in), or `resume` it (a false alarm). */
export type InterruptionDecision = 'pause' | 'interrupt' | 'resume';

/**
 * The session's barge-in policy by default (a `BargeInPolicy`), with `InterruptionOptions`: a
 * policy of your own may wrap it (`SessionOptions.stages.interruption`).
 */
export class InterruptionPolicy {
  private since: number | undefined;
  private paused = false;
  private readonly o: typeof INTERRUPTION_DEFAULTS;
  private readonly backchannel: (text: string) => boolean;

  constructor(opts: InterruptionOptions = {}) {
    this.o = withDefaults(INTERRUPTION_DEFAULTS, opts);
    this.backchannel = this.o.backchannels ? backchannelMatcher(this.o.backchannels) : () => false;
  }

  /** Whether `text` is only a backchannel ("آه", "إيه تمام"): no words for barge-in, and no turn over the agent. */
  isBackchannel(text: string): boolean {
    return this.backchannel(text);
  }

  /** The agent is paused on caller speech, waiting for words or a false alarm. */
  get isPaused(): boolean {
    return this.paused;
  }

  /** Clock time at which `tick` may decide something (a long speech, a false alarm). */
  get deadline(): number | undefined {
    if (this.since === undefined) return undefined;
    const timeout = this.since + this.o.falseInterruptionTimeoutMs;
    return this.o.minSpeechMs === undefined ? timeout : Math.min(timeout, this.since + this.o.minSpeechMs);
  }

  /** A new reply starts: nothing paused, no speech pending. */
  reset(): void {
    this.since = undefined;
    this.paused = false;
  }

  /** A recognizer event while the agent may be speaking. `context.yesNo`: a yes or a no is awaited, so a backchannel's words count (they answer). */
  onEvent(e: ListenEvent, now: number, agentSpeaking: boolean, context: { yesNo?: boolean } = {}): InterruptionDecision | undefined {
    if (!this.o.enabled || (!agentSpeaking && !this.paused)) {
      this.since = undefined;
      return undefined;
    }
    if (e.type === 'SpeechStarted') {
      this.since ??= now;
      if (this.o.pauseOnSpeech && !this.paused) {
        this.paused = true;
        return 'pause';
      }
      return undefined;
    }
    if (e.type === 'Results') {
      const words = !context.yesNo && this.backchannel(e.transcript) ? 0 : e.words.length || (e.transcript ? e.transcript.split(/\s+/).length : 0);
      if (words >= this.o.minWords) {
        this.reset();
        return 'interrupt';
      }
      if (e.is_final && this.since !== undefined) return this.falseAlarm();
    }
    if (e.type === 'UtteranceEnd' && this.since !== undefined) return this.falseAlarm();
    return undefined;
  }

  /** Clock time `now` reached `deadline`: a long speech confirmed, or a false alarm resumed. */
  tick(now: number, agentSpeaking: boolean): InterruptionDecision | undefined {
    if (this.since === undefined) return undefined;
    // A pause on speech start stops the voice, so "speaking" is false while the caller goes on:
    // speech that lasts still confirms the cut then.
    if (this.o.minSpeechMs !== undefined && (agentSpeaking || this.paused) && now - this.since >= this.o.minSpeechMs) {
      this.reset();
      return 'interrupt';
    }
    if (now - this.since >= this.o.falseInterruptionTimeoutMs) return this.falseAlarm();
    return undefined;
  }

  private falseAlarm(): InterruptionDecision | undefined {
    const wasPaused = this.paused;
    this.reset();
    return wasPaused ? 'resume' : undefined;
  }
}
