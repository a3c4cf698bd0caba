import type { ListenEvent } from '../service/ws/listen-events.ts';

/**
 * Barge-in decisions while the agent speaks. Pure, for virtual-time tests.
 *
 * Speech starting pauses the agent (if `pauseOnSpeech`); words (at least `minWords`) confirm
 * an interruption; speech that ends without words, or no words within
 * `falseInterruptionTimeoutMs`, is a false alarm (a cough, a door) and the agent resumes.
 * Optionally, speech lasting `minSpeechMs` counts even before words arrive.
 */
export interface InterruptionOptions {
  enabled?: boolean;
  /** Also listen with a local Silero VAD (hears speech start before the service does). */
  localVad?: boolean;
  minWords?: number;
  minSpeechMs?: number;
  pauseOnSpeech?: boolean;
  falseInterruptionTimeoutMs?: number;
}

export type InterruptionDecision = 'pause' | 'interrupt' | 'resume';

export class InterruptionPolicy {
  private since: number | undefined;
  private paused = false;
  private readonly o: Required<Omit<InterruptionOptions, 'minSpeechMs' | 'localVad'>> & { minSpeechMs: number | undefined };

  constructor(opts: InterruptionOptions = {}) {
    this.o = {
      enabled: opts.enabled ?? true,
      minWords: opts.minWords ?? 1,
      minSpeechMs: opts.minSpeechMs,
      pauseOnSpeech: opts.pauseOnSpeech ?? true,
      falseInterruptionTimeoutMs: opts.falseInterruptionTimeoutMs ?? 2000,
    };
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Clock time at which `tick` may decide something (a long speech, a false alarm). */
  get deadline(): number | undefined {
    if (this.since === undefined) return undefined;
    const timeout = this.since + this.o.falseInterruptionTimeoutMs;
    return this.o.minSpeechMs === undefined ? timeout : Math.min(timeout, this.since + this.o.minSpeechMs);
  }

  reset(): void {
    this.since = undefined;
    this.paused = false;
  }

  onEvent(e: ListenEvent, now: number, agentSpeaking: boolean): InterruptionDecision | undefined {
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
      const words = e.words.length || (e.transcript ? e.transcript.split(/\s+/).length : 0);
      if (words >= this.o.minWords) {
        this.reset();
        return 'interrupt';
      }
      if (e.is_final && this.since !== undefined) return this.falseAlarm();
    }
    if (e.type === 'UtteranceEnd' && this.since !== undefined) return this.falseAlarm();
    return undefined;
  }

  tick(now: number, agentSpeaking: boolean): InterruptionDecision | undefined {
    if (this.since === undefined) return undefined;
    if (this.o.minSpeechMs !== undefined && agentSpeaking && now - this.since >= this.o.minSpeechMs) {
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
