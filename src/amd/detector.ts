/**
 * Answering-machine detection on the first seconds of an answered call. Pure and I/O-free: it is
 * fed the caller's audio frames and the recognizer's transcripts, and decides on stream time: a
 * frame's time is where it sits in the caller's audio (samples received so far / rate, from
 * `startAt`), never when it arrived. A loaded machine delivers frames late and in bursts; the
 * pause after a person's "ألو" is in the samples, not in their arrival, so paced, bursty and
 * stalled delivery of the same audio give the same class at the same stream time.
 *
 * How it decides (docs/amd.md): a carrier's tones or phrase → `machine-unavailable`; a beep →
 * `machine-voicemail` (with where the beep ended); a first utterance no longer than `greetingMs`
 * followed by `humanSilenceMs` of silence → `human`; a longer one is a greeting, which is then
 * followed to its end (a beep, a phrase, or `beepWaitMs` of silence) → `machine-voicemail`;
 * nothing clear by `maxDecisionMs` → `uncertain`.
 */
import type { AudioFrame } from '../audio/frame.ts';
import { createPolyphaseResampler } from '../audio/polyphase.ts';
import type { StreamResampler } from '../audio/resample.ts';
import { withDefaults } from '../options.ts';
import { EnergyVad } from './energy-vad.ts';
import { AMD_DEFAULTS, type AmdClass, type AmdDecision, type AmdOptions, type AmdPhrase, type AmdSignals, type ToneSegment } from './options.ts';
import { PhraseTable } from './phrases.ts';
import { BLOCK, BLOCK_MS, TONE_RATE, ToneAnalyser, ToneTracker, type ToneEnd } from './tone.ts';

/** SIT tones follow each other within this gap (ms) and differ by at least this much (Hz). */
const SIT_GAP_MS = 60;
const SIT_MIN_STEP_HZ = 100;

interface Utterance {
  start: number;
  end: number;
}

/** Decides who answered from the first seconds of a call; feed it with `push`, `transcript`, `tick`. */
export class AmdDetector {
  readonly o: Required<AmdOptions>;
  private readonly analyser: ToneAnalyser;
  private readonly tones: ToneTracker;
  private readonly vad: EnergyVad;
  private readonly phrases: PhraseTable;
  private resampler: StreamResampler | undefined;
  private pending = new Int16Array(0);
  /** Stream time (ms) of the first sample in `pending`: where the next block starts. */
  private pendingStart = 0;
  private startAt: number | undefined;
  private now = 0;
  private result: AmdDecision | undefined;
  // speech/silence
  private candidate: number | undefined;
  private inSpeech = false;
  private lastSpeechEnd = 0;
  private speechMs = 0;
  private first: Utterance | undefined;
  private firstClosed = false;
  // tones
  private lastToneEnd = 0;
  private chain: ToneSegment[] = [];
  private beep: ToneSegment | undefined;
  private sit: ToneSegment[] | undefined;
  // text
  private finals: string[] = [];
  private interim = '';
  private phrase: AmdPhrase | undefined;
  private machineAt: number | undefined;

  /** `startAt`: ms the stream's first sample stands for (the call answered; default: the first frame's `time`). */
  constructor(opts: AmdOptions = {}, startAt?: number) {
    this.o = withDefaults(AMD_DEFAULTS, opts);
    const [lo, hi] = this.o.beepBand;
    if (!(lo > 0 && hi > lo && hi < TONE_RATE / 2)) throw new RangeError(`beepBand must be [low, high] Hz with 0 < low < high < 4000, not [${lo}, ${hi}]`);
    for (const k of ['maxDecisionMs', 'maxGreetingMs', 'humanSilenceMs', 'greetingMs', 'initialSilenceMs', 'beepWaitMs', 'beepMinMs', 'minSpeechMs'] as const) {
      if (!(this.o[k] >= 0)) throw new RangeError(`${k} must be a number of ms ≥ 0, not ${this.o[k]}`);
    }
    this.analyser = new ToneAnalyser(this.o.beepBand);
    this.tones = new ToneTracker(this.o.tonePurity, this.o.speechMinDbfs);
    this.vad = new EnergyVad(this.o.speechAboveFloorDb, this.o.speechMinDbfs, this.o.minVoicing);
    this.phrases = new PhraseTable(this.o.phrases, this.o.phraseCoverage);
    if (startAt !== undefined) this.startAt = this.pendingStart = this.now = startAt;
  }

  /** The decision, once made (it never changes afterwards). */
  get decision(): AmdDecision | undefined {
    return this.result;
  }

  /** Stream time (ms): `startAt` plus the caller audio received so far (and any silence `tick` added). */
  get position(): number | undefined {
    return this.startAt === undefined ? undefined : Math.max(this.pendingStart + (this.pending.length / TONE_RATE) * 1000, this.now);
  }

  /**
   * Caller audio (any rate that is 8 kHz times 1 to 6), timed by its place in the stream: the
   * frame's `time` is not read (except for `startAt`, when none was given). Returns the decision
   * when this frame made it.
   */
  push(frame: AudioFrame): AmdDecision | undefined {
    if (this.result) return undefined;
    if (this.startAt === undefined) this.startAt = this.pendingStart = this.now = frame.time;
    let samples = frame.samples;
    if (frame.sampleRate !== TONE_RATE) {
      this.resampler ??= createPolyphaseResampler(frame.sampleRate, TONE_RATE);
      if (this.resampler.fromRate !== frame.sampleRate) throw new RangeError(`frames changed rate from ${this.resampler.fromRate} to ${frame.sampleRate} Hz`);
      samples = this.resampler.push(samples);
    }
    // Silence that `tick` counted (a line that stopped sending) stays in the stream before this frame.
    if (!this.pending.length && this.now > this.pendingStart) this.pendingStart = this.now;
    const joined = new Int16Array(this.pending.length + samples.length);
    joined.set(this.pending);
    joined.set(samples, this.pending.length);
    let off = 0;
    for (; off + BLOCK <= joined.length && !this.result; off += BLOCK) {
      const start = this.pendingStart;
      this.pendingStart += BLOCK_MS;
      this.block(joined.subarray(off, off + BLOCK), start, start + BLOCK_MS);
    }
    this.pending = this.result ? new Int16Array(0) : joined.slice(off);
    return this.result;
  }

  /** Speech probability of a window [start, end) in stream ms (`startAt` + audio seconds), when `vad` is `external`. */
  speech(p: number, start: number, end: number): AmdDecision | undefined {
    if (this.result || this.o.vad !== 'external') return undefined;
    if (this.startAt === undefined) this.startAt = this.pendingStart = this.now = start;
    this.onSpeech(p >= 0.5, start, end);
    return this.evaluate(Math.max(this.now, end));
  }

  /**
   * A transcript from the recognizer (interim or final). It is of audio already pushed, so it is
   * weighed at the stream's current position, not at its arrival time.
   */
  transcript(text: string, final: boolean): AmdDecision | undefined {
    if (this.result) return undefined;
    if (final) {
      this.finals.push(text);
      this.interim = '';
    } else this.interim = text;
    const found = this.phrases.match(this.heard);
    // A carrier phrase outranks a voicemail one (announcements may say "leave a message" too).
    if (found && (!this.phrase || (found.class === 'machine-unavailable' && this.phrase.class !== found.class))) this.phrase = found;
    return this.startAt === undefined ? undefined : this.evaluate(this.position!);
  }

  /**
   * A line that stopped sending: the stream runs on in silence up to stream time `now` (the next
   * frame's audio follows that silence); decides what is due by then.
   */
  tick(now: number): AmdDecision | undefined {
    if (this.result) return undefined;
    if (this.startAt === undefined) this.startAt = this.pendingStart = this.now = now;
    return this.evaluate(Math.max(this.position!, now));
  }

  /** The latest stream time at which, with nothing new heard, a decision is due. */
  get deadline(): number | undefined {
    if (this.result || this.startAt === undefined) return undefined;
    const machine = (this.first && this.first.end - this.first.start > this.o.greetingMs) || this.phrase;
    if (machine) return this.startAt + Math.max(this.o.maxGreetingMs, this.o.maxDecisionMs);
    return this.startAt + (this.first || this.candidate !== undefined ? this.o.maxDecisionMs : Math.min(this.o.initialSilenceMs, this.o.maxDecisionMs));
  }

  private get heard(): string {
    return [...this.finals, this.interim].join(' ').trim();
  }

  private block(samples: Int16Array, start: number, end: number): void {
    const t = this.analyser.analyse(samples);
    const tonal = this.tones.isTonal(t);
    for (const ended of this.tones.push(t, start, end)) this.onToneEnd(ended);
    if (this.tones.current) this.lastToneEnd = end;
    // A tone is not speech: the level VAD would take a beep for a word.
    if (this.o.vad === 'energy') this.onSpeech(this.vad.push(samples, t.dbfs) && !tonal, start, end);
    this.evaluate(end);
  }

  private onToneEnd(t: ToneEnd): void {
    const long = t.end - t.start >= this.o.beepMinMs;
    const last = this.chain.at(-1);
    if (!long) {
      if (t.into === 'other') this.chain = [];
      return;
    }
    if (last && t.start - last.end <= SIT_GAP_MS && Math.abs(t.frequency - last.frequency) >= SIT_MIN_STEP_HZ) this.chain.push(t);
    else this.chain = [t];
    if (this.chain.length >= 2) this.sit = [...this.chain];
    else if (t.into === 'other') this.beep = t;
    if (t.into === 'other') this.chain = [];
  }

  private onSpeech(isSpeech: boolean, start: number, end: number): void {
    if (!isSpeech) {
      if (!this.inSpeech) this.candidate = undefined;
      return;
    }
    this.candidate ??= start;
    if (!this.inSpeech && end - this.candidate < this.o.minSpeechMs) return;
    if (!this.inSpeech) {
      this.inSpeech = true;
      this.speechMs += start - this.candidate;
      this.first ??= { start: this.candidate, end };
    }
    this.speechMs += end - start;
    this.lastSpeechEnd = end;
    if (this.first && !this.firstClosed) this.first.end = end;
  }

  private evaluate(now: number): AmdDecision | undefined {
    if (this.result) return this.result;
    this.now = now;
    const since = now - this.startAt!;
    const toneOn = !!this.tones.current;
    const lastSound = Math.max(this.lastSpeechEnd, this.lastToneEnd);
    // Speech ends after `humanSilenceMs` of silence (a tone is not silence).
    if (this.inSpeech && !toneOn && now - lastSound >= this.o.humanSilenceMs) {
      this.inSpeech = false;
      this.candidate = undefined;
      if (this.first) this.firstClosed = true;
    }
    const firstMs = this.first ? this.first.end - this.first.start : undefined;
    const greeting = firstMs !== undefined && firstMs > this.o.greetingMs;
    if (this.sit) return this.decide('machine-unavailable', now, 'special information tones');
    if (this.phrase?.class === 'machine-unavailable') return this.decide('machine-unavailable', now, `carrier phrase «${this.phrase.text}»`);
    if (this.beep) return this.decide('machine-voicemail', now, `beep at ${Math.round(this.beep.frequency)} Hz`, undefined, this.beep.end);
    const machine = greeting || this.phrase?.class === 'machine-voicemail';
    if (machine) {
      this.machineAt ??= now;
      if (!this.inSpeech && !toneOn && now - lastSound >= this.o.beepWaitMs) {
        return this.decide('machine-voicemail', now, this.phrase ? `voicemail phrase «${this.phrase.text}», no beep` : 'long greeting, no beep', undefined, undefined, now);
      }
    } else if (this.firstClosed && !toneOn) return this.decide('human', now, 'a short first utterance, then silence');
    else if (!this.first && !toneOn && !this.candidate && since >= this.o.initialSilenceMs) return this.decide('uncertain', now, 'no speech');
    if (machine && since >= Math.max(this.o.maxGreetingMs, this.o.maxDecisionMs)) return this.decide('machine-voicemail', now, 'greeting still going at the time limit');
    if (!machine && since >= this.o.maxDecisionMs) return this.decide('uncertain', now, 'nothing clear by the time limit');
    return undefined;
  }

  private decide(cls: AmdClass, at: number, reason: string, pattern?: AmdSignals['pattern'], beepEndAt?: number, messageAt?: number): AmdDecision {
    const firstMs = this.first ? this.first.end - this.first.start : undefined;
    const base = this.startAt!;
    const signals: AmdSignals = {
      speechMs: Math.round(this.speechMs),
      transcript: this.heard,
      pattern: pattern ?? (firstMs === undefined ? 'silence' : firstMs > this.o.greetingMs ? 'long-greeting' : 'short-then-silence'),
      ...(cls.startsWith('machine') ? { machineMs: Math.round((this.machineAt ?? at) - base) } : {}),
      ...(this.first ? { firstSpeechMs: Math.round(this.first.start - base), firstUtteranceMs: Math.round(firstMs!) } : {}),
      ...(this.beep ? { beep: this.beep } : {}),
      ...(this.sit ? { sit: this.sit } : {}),
      ...(this.phrase ? { phrase: { text: this.phrase.text, class: this.phrase.class } } : {}),
    };
    this.result = {
      class: cls,
      at,
      decisionMs: Math.round(at - base),
      reason,
      ...(beepEndAt !== undefined ? { beepEndAt, messageAt: beepEndAt } : messageAt !== undefined ? { messageAt } : {}),
      signals,
    };
    return this.result;
  }
}
