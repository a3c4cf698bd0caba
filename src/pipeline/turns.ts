import { withDefaults } from '../options.ts';
import type { ListenEvent } from '../service/ws/listen-events.ts';
import { arabicTurnPolicy, type TurnContext, type TurnCueOptions, type TurnJudge, type TurnVerdict } from './turn-policy.ts';

/**
 * Decides when the caller has finished a turn. Pure: fed the socket's events and the time,
 * so tests run it on virtual time.
 *
 * Without a turn policy a turn ends on a final that is also speech_final; UtteranceEnd ends it
 * when the final lacked that flag. With one (the Arabic policy by default), each end of speech
 * is judged on the words of the turn so far: a complete turn ends at once, an incomplete one
 * is held open up to `holdMaxMs` of silence, and one without a cue waits out the ordinary
 * silence. The session opens /listen with a short endpointing (`listenEndpointingMs`) so that
 * the service's end of speech comes early enough for a complete turn to gain from it.
 *
 * A forced split (is_final without speech_final, after a minute of speech) only adds a
 * fragment. New speech during any wait cancels the decision and the fragments keep accumulating.
 */
export interface TurnOptions {
  /**
   * Extra wait after the end of a turn before replying; speech within it keeps the turn open.
   * @default 0
   */
  endDelayMs?: number;
  /**
   * The turn policy: `arabicTurnPolicy(cues)` by default, your own judge, or `false` to end turns
   * where the service's end of speech puts them (as before the policy).
   */
  policy?: TurnJudge | false;
  /** Cue options of the default policy (dialects, your own words). */
  cues?: TurnCueOptions;
  /**
   * Longest silence (ms after the caller's last word) an incomplete turn is held open.
   * @default 2500
   */
  holdMaxMs?: number;
  /**
   * Endpointing the session asks /listen for while a policy is on (`stt.endpointing` when lower):
   * the service's end of speech after this much silence, judged at once.
   * @default 250
   */
  listenEndpointingMs?: number;
}

/**
 * Defaults of turn detection: no wait after the end of a turn, the Arabic policy on, incomplete
 * turns held up to 2.5 s of silence, /listen's endpointing 250 ms while the policy is on.
 */
export const TURN_DEFAULTS: Required<Omit<TurnOptions, 'policy' | 'cues'>> & { silenceMs: number } = {
  endDelayMs: 0,
  holdMaxMs: 2500,
  listenEndpointingMs: 250,
  /** Silence that ends a turn without a cue when `stt.endpointing` is unset (the service's own default). */
  silenceMs: 700,
};

/** Why a turn ended when it did (`TurnMetrics.endOfTurnReason`). */
export type EndOfTurnReason =
  /** No policy: the service's end of speech (a speech_final final). */
  | 'speech-final'
  /** No policy: UtteranceEnd, after a final without speech_final. */
  | 'utterance-end'
  /** The policy found no cue: the ordinary silence passed. */
  | 'silence'
  /** The policy found the turn complete: ended on the first speech_final. */
  | 'speech-final-complete'
  /** The policy found the turn incomplete, and the caller said nothing more before `holdMaxMs`. */
  | 'held-incomplete-timeout'
  /** The turn was held as incomplete, the caller went on, and a later end of speech ended it. */
  | 'held-then-continued';

/** How a turn's end was decided. */
export interface EndOfTurn {
  reason: EndOfTurnReason;
  /** The policy's cue for the last decision (`connector:و`, `question:كم`, `digits:10`). */
  cue?: string;
  /** Ms the decision waited beyond (+) or short of (−) the ordinary silence after the service's end of speech. */
  waitMs: number;
}

/** One caller turn, as the detector decided it. */
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
  /** Why the turn ended then (set by `TurnDetector`). */
  endOfTurn?: EndOfTurn;
}

/** What the session tells the detector besides the options (the socket it opened, what the agent waits for). */
export interface TurnEnvironment {
  /** Endpointing /listen was opened with (ms): the silence before each speech_final. @default silenceMs */
  endpointingMs?: number;
  /** Silence that ends a turn without a cue (ms). @default TURN_DEFAULTS.silenceMs */
  silenceMs?: number;
  /** The context the policy judges with (a task's expectation, the agent's last line). */
  context?: () => TurnContext;
  /** The policy threw: the turn is judged as unknown. */
  onError?: (err: unknown) => void;
}

/** The default turn policy of a session: the service's end of speech, judged by the Arabic turn policy (see TurnOptions). */
export class TurnDetector {
  private fragments: string[] = [];
  /** The latest interim after the last final (words the caller is saying now). */
  private interim = '';
  private lastWordEnd: number | undefined;
  private firstWordStart: number | undefined;
  private finalAt = 0;
  private readyAt: number | undefined;
  private pending: EndOfTurn | undefined;
  /** The deadline set is a hold on an incomplete turn. */
  private holding = false;
  /** This turn was held and the caller went on. */
  private continued = false;
  private readonly delay: number;
  private readonly holdMax: number;
  private readonly judge: TurnJudge | undefined;
  private readonly endpointing: number;
  private readonly silence: number;

  constructor(opts: TurnOptions = {}, private readonly env: TurnEnvironment = {}) {
    const o = withDefaults(TURN_DEFAULTS, opts);
    this.delay = o.endDelayMs;
    this.holdMax = o.holdMaxMs;
    if (!(Number.isFinite(o.holdMaxMs) && o.holdMaxMs >= 0)) throw new RangeError(`turn.holdMaxMs must be a number of ms ≥ 0, got ${o.holdMaxMs}`);
    if (opts.policy !== undefined && opts.policy !== false && typeof opts.policy !== 'function') throw new TypeError('turn.policy must be a function (text, context) => verdict, or false');
    this.judge = opts.policy === false ? undefined : (opts.policy ?? arabicTurnPolicy(opts.cues));
    this.silence = env.silenceMs ?? TURN_DEFAULTS.silenceMs;
    this.endpointing = env.endpointingMs ?? this.silence;
  }

  /** Clock time at which `tick` will decide a pending turn, if one is pending. */
  get deadline(): number | undefined {
    return this.readyAt;
  }

  /** Words heard in the turn so far (finals only). */
  get pendingText(): string {
    return this.fragments.join(' ');
  }

  /** A recognizer event at clock time `now`: the turns it ends, if any. */
  onEvent(e: ListenEvent, now: number): UserTurn[] {
    switch (e.type) {
      case 'SpeechStarted':
        this.goOn();
        break;
      case 'Results':
        if (!e.is_final) {
          if (e.transcript) {
            this.interim = e.transcript;
            this.goOn();
          }
          break;
        }
        this.interim = '';
        if (e.transcript) {
          this.fragments.push(e.transcript);
          this.finalAt = now;
          const last = e.words.at(-1);
          if (last) this.lastWordEnd = last.end;
          this.firstWordStart ??= e.words[0]?.start;
        }
        if (e.speech_final) this.endOfSpeech(now, 'speech-final');
        break;
      case 'UtteranceEnd':
        if (this.fragments.length && this.readyAt === undefined) this.endOfSpeech(now, 'utterance-end');
        this.lastWordEnd ??= e.last_word_end;
        if (this.lastWordEnd !== undefined) this.lastWordEnd = Math.max(this.lastWordEnd, e.last_word_end);
        break;
      default:
        break;
    }
    return this.tick(now);
  }

  /** Clock time `now` reached `deadline`: the turn it ends, if any. */
  tick(now: number): UserTurn[] {
    if (this.readyAt === undefined || now < this.readyAt) return [];
    const text = this.fragments.join(' ').trim();
    const turn: UserTurn = { text, lastWordEnd: this.lastWordEnd, finalAt: this.finalAt, decidedAt: now, ...(this.pending ? { endOfTurn: this.pending } : {}) };
    if (this.firstWordStart !== undefined) turn.firstWordStart = this.firstWordStart;
    this.fragments = [];
    this.interim = '';
    this.lastWordEnd = undefined;
    this.firstWordStart = undefined;
    this.readyAt = undefined;
    this.pending = undefined;
    this.holding = false;
    this.continued = false;
    // A turn without words (noise, an unrecognized sound) is not a turn.
    return text ? [turn] : [];
  }

  /** The caller speaks again: a pending decision is dropped and the turn goes on. */
  private goOn(): void {
    if (this.readyAt !== undefined && this.holding) this.continued = true;
    this.readyAt = undefined;
    this.pending = undefined;
    this.holding = false;
  }

  /** The service says the caller stopped: when the turn ends, by the policy's verdict. */
  private endOfSpeech(now: number, via: 'speech-final' | 'utterance-end'): void {
    if (!this.judge) {
      this.decide(now, 0, { reason: via, waitMs: 0 });
      return;
    }
    const ordinary = Math.max(0, this.silence - this.endpointing);
    const v = this.verdict();
    this.holding = v.decision === 'incomplete';
    if (v.decision === 'complete') {
      this.decide(now, 0, { reason: this.continued ? 'held-then-continued' : 'speech-final-complete', cue: v.cue, waitMs: -ordinary });
    } else if (v.decision === 'incomplete') {
      const hold = Math.max(ordinary, this.holdMax - this.endpointing);
      this.decide(now, hold, { reason: 'held-incomplete-timeout', cue: v.cue, waitMs: hold - ordinary });
    } else {
      this.decide(now, ordinary, { reason: this.continued ? 'held-then-continued' : 'silence', cue: v.cue, waitMs: 0 });
    }
  }

  private decide(now: number, waitMs: number, end: EndOfTurn): void {
    this.readyAt = now + waitMs + this.delay;
    this.pending = end;
  }

  /** The policy's verdict on the turn so far; a policy that throws decides nothing. */
  private verdict(): TurnVerdict {
    const text = [...this.fragments, this.interim].join(' ').trim();
    try {
      return this.judge!(text, this.env.context?.() ?? {});
    } catch (err) {
      this.env.onError?.(err);
      return { decision: 'unknown', cue: 'policy-error' };
    }
  }
}
