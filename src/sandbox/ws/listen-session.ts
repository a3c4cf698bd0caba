import { randomUUID } from 'node:crypto';
import { createResampler, type StreamResampler } from '../../audio/resample.ts';
import { concatPcm } from '../../audio/pcm.ts';
import { Endpointer } from '../../audio/endpointer.ts';
import { genderFromPitch, medianPitch } from '../engines/pitch.ts';
import type { Recognition, Recognizer } from '../engines/recognizer.ts';
import { DIGITAL_SILENCE_RESTART_WINDOWS, SileroStream } from '../../audio/silero-vad.ts';
import type { KeyState } from '../keys.ts';
import { CREDITS_PER_AUDIO_SECOND } from '../pricing.ts';
import { sentimentOf } from '../text-analysis.ts';

export interface ListenParams {
  model: string;
  sampleRate: 8000 | 16000;
  language: string;
  timestamps: boolean;
  interim: boolean;
  endpointingMs: number;
  droppedHotwords: string[];
  correlationId: string | null;
}

export interface ListenTiming {
  /** Close 1011 after this long without audio or KeepAlive. */
  listenIdleMs: number;
  /** A final (is_final without speech_final) after this much unbroken speech. */
  forcedSplitS: number;
  /** Close 4008 when audio runs this far ahead of real time. */
  aheadLimitS: number;
}

export interface ListenIo {
  send(message: object): void;
  close(code: number, reason: string): void;
}

const PAD_S = 0.15;
/**
 * Audio before the VAD's start of speech that recognition also gets (the recognizer trims
 * silence by energy itself). Silero can stay under its threshold for half a second on a soft
 * onset (a plosive after digital silence: the "ك" of "كم رصيدي"), so a turn cut at its start
 * lost the first word and matched nothing: an empty final (docs/sandbox.md).
 */
const PRE_ROLL_S = 1;
const INTERIM_EVERY_S = 0.5;
/** Audio kept while nobody speaks: the pre-roll, and the VAD's confirmation delay. */
const KEEP_WHEN_SILENT_S = PRE_ROLL_S + 0.5;
const MAX_INTERIM_S = 20;

/**
 * One /listen stream: VAD turn-taking, closed-set recognition, and the protocol's events in
 * their documented order. The socket glue feeds it frames; it answers through `io`.
 */
export class ListenSession {
  readonly sessionId = randomUUID();
  private vad!: SileroStream;
  private resampler!: StreamResampler;
  private readonly endpointer: Endpointer;
  private chain: Promise<void> = Promise.resolve();
  private buffer: Int16Array[] = [];
  private bufferStart = 0;
  private buffered = 0;
  private received = 0;
  private billedSeconds = 0;
  private carry: Buffer | undefined;
  private turnId = 0;
  private turnCount = 0;
  private partStart: number | undefined;
  /** Start of the turn (a turn outlives forced splits) and the words already sent as finals. */
  private turnStart = 0;
  /** Stream time the last turn ended: the next one's pre-roll never reaches back into it. */
  private lastTurnEnd = 0;
  private emitted = 0;
  private lastInterimAt = 0;
  private lastInterimText = '';
  private readonly openedAt = Date.now();
  private idleTimer: NodeJS.Timeout | undefined;
  /** Messages read so far (the idle timer's check); CloseStream read (no idle close after it). */
  private touches = 0;
  private closing = false;
  private closed = false;

  constructor(
    private readonly params: ListenParams,
    private readonly io: ListenIo,
    private readonly recognizer: Recognizer,
    private readonly key: KeyState,
    private readonly timing: ListenTiming,
  ) {
    this.endpointer = new Endpointer({ endpointingMs: params.endpointingMs });
  }

  async start(): Promise<void> {
    this.vad = await SileroStream.create({ restartAfterZeroWindows: DIGITAL_SILENCE_RESTART_WINDOWS });
    this.resampler = await createResampler(this.params.sampleRate, 16000);
    this.io.send({
      type: 'Metadata', session_id: this.sessionId, correlation_id: this.params.correlationId, model: this.params.model,
      protocol_version: 1, channels: 1, sample_rate: this.params.sampleRate, dropped_hotwords: this.params.droppedHotwords,
    });
    this.touch();
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    // After CloseStream the client waits for the server: not idle, however long the backlog takes.
    if (this.closing) return;
    const ms = this.timing.listenIdleMs;
    const touches = ++this.touches;
    this.idleTimer = setTimeout(() => {
      // Node runs due timers before it reads the sockets: when this process was busy or off the
      // CPU, the client's audio may be waiting unread. Judge after the next read (setImmediate
      // runs after the poll phase); a message read meanwhile has re-armed the timer.
      setImmediate(() => {
        if (touches === this.touches) this.fail(1011, `no audio or KeepAlive for ${ms / 1000} s`, false);
      });
    }, ms);
  }

  private fail(code: number, message: string, sendError = true): void {
    if (this.closed) return;
    if (sendError) this.io.send({ type: 'Error', code, message, recoverable: false });
    this.shutdown();
    this.io.close(code, message);
  }

  private shutdown(): void {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.resampler?.close();
  }

  /** The peer went away. */
  dispose(): void {
    this.shutdown();
  }

  onAudio(data: Buffer): void {
    if (this.closed) return;
    this.touch();
    const bytes = this.carry ? Buffer.concat([this.carry, data]) : data;
    const whole = bytes.length - (bytes.length % 2);
    this.carry = whole < bytes.length ? bytes.subarray(whole) : undefined;
    const pcm = new Int16Array(whole / 2);
    for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(2 * i);
    this.received += pcm.length;
    const seconds = this.received / this.params.sampleRate;
    if (seconds - (Date.now() - this.openedAt) / 1000 > this.timing.aheadLimitS) {
      return this.fail(4008, `audio sent more than ${this.timing.aheadLimitS} s ahead of real time`);
    }
    while (this.billedSeconds < Math.floor(seconds)) {
      this.billedSeconds++;
      if (!this.key.spend(CREDITS_PER_AUDIO_SECOND)) return this.fail(1008, 'insufficient wallet balance');
    }
    this.chain = this.chain.then(() => this.process(pcm)).catch((err) => this.fail(1011, `internal error: ${(err as Error).message}`));
  }

  onControl(text: string): void {
    if (this.closed) return;
    let msg: { type?: unknown };
    try {
      msg = JSON.parse(text) as { type?: unknown };
      // `null`, numbers and arrays parse as JSON too but are not messages.
      if (!msg || typeof msg !== 'object' || Array.isArray(msg)) throw new Error('not an object');
    } catch {
      return this.io.send({ type: 'Error', code: 4002, message: 'control messages must be JSON objects', recoverable: true });
    }
    this.touch();
    if (msg.type === 'KeepAlive') return;
    if (msg.type === 'CloseStream') {
      this.closing = true;
      clearTimeout(this.idleTimer);
      return void this.closeStream();
    }
    if (msg.type === 'Finalize') return this.io.send({ type: 'Error', code: 4002, message: 'Finalize is not supported', recoverable: true });
    this.io.send({ type: 'Error', code: 4002, message: `unknown control message ${JSON.stringify(msg.type)}`, recoverable: true });
  }

  private async closeStream(): Promise<void> {
    await this.chain;
    if (this.closed) return;
    const last = this.endpointer.flush();
    if (last?.type === 'end') this.finishPart(last.at, true);
    this.io.send({
      type: 'Metadata', session_id: this.sessionId,
      audio_seconds_billed: Math.round((this.received / this.params.sampleRate) * 1000) / 1000,
      turn_count: this.turnCount,
    });
    this.shutdown();
    this.io.close(1000, 'stream closed');
  }

  private async process(pcm: Int16Array): Promise<void> {
    if (this.closed) return;
    const pcm16 = this.resampler.push(pcm);
    this.buffer.push(pcm16);
    this.buffered += pcm16.length;
    for (const w of await this.vad.push(pcm16)) {
      if (this.closed) return;
      for (const e of this.endpointer.push(w.p, w.start, w.end)) {
        if (e.type === 'start') {
          this.partStart = e.at;
          this.turnStart = e.at;
          this.emitted = 0;
          this.lastInterimAt = e.at;
          this.lastInterimText = '';
          this.io.send({ type: 'SpeechStarted', channel: 0, ts: round(e.at) });
        } else this.finishPart(e.at, true);
      }
      if (this.partStart !== undefined) {
        if (w.end - this.partStart >= this.timing.forcedSplitS) this.finishPart(w.end, false);
        else if (this.params.interim && w.end - this.lastInterimAt >= INTERIM_EVERY_S) this.interim(w.end);
      }
    }
    if (this.partStart === undefined) this.trimBuffer(this.bufferStart + this.buffered / 16000 - KEEP_WHEN_SILENT_S);
  }

  /** Audio of [from, to] seconds (stream time) from the buffer. */
  private slice(from: number, to: number): { pcm: Int16Array; offset: number } {
    const all = concatPcm(this.buffer);
    this.buffer = [all];
    const a = Math.max(0, Math.floor((from - this.bufferStart) * 16000));
    const b = Math.min(all.length, Math.ceil((to - this.bufferStart) * 16000));
    return { pcm: all.subarray(a, b), offset: this.bufferStart + a / 16000 };
  }

  private trimBuffer(keepFrom: number): void {
    const drop = Math.floor((keepFrom - this.bufferStart) * 16000);
    if (drop <= 0) return;
    const all = concatPcm(this.buffer).subarray(drop);
    this.buffer = [all];
    this.buffered = all.length;
    this.bufferStart += drop / 16000;
  }

  /** The words of the current part: those of the turn not yet sent in a final. */
  private partWords(r: Recognition | undefined): Recognition['words'] {
    return r ? r.words.slice(this.emitted) : [];
  }

  private results(words: Recognition['words'], confidence: number | undefined, offset: number, isFinal: boolean, speechFinal: boolean): void {
    this.io.send({
      type: 'Results', channel: 0, turn_id: this.turnId,
      transcript: words.map((w) => w.word).join(' '),
      words: this.params.timestamps ? words.map((w) => ({ word: w.word, start: round(w.start + offset), end: round(w.end + offset), confidence: w.confidence })) : [],
      is_final: isFinal, speech_final: speechFinal,
      language: this.params.language === 'auto' ? 'ar' : this.params.language,
      confidence: isFinal && confidence !== undefined && this.params.timestamps ? confidence : null,
    });
  }

  /** 8 kHz audio came through a phone line: the recognizer's words are matched over its band. */
  private band(): 'phone' | undefined {
    return this.params.sampleRate === 8000 ? 'phone' : undefined;
  }

  /** Where the current turn's audio for recognition starts: its pre-roll, after the last turn. */
  private audioStart(): number {
    return Math.max(this.turnStart - PRE_ROLL_S, Math.min(this.lastTurnEnd + PAD_S, this.turnStart - PAD_S));
  }

  /** Recognition always looks at the whole turn, so a split never cuts a phrase in two. */
  private interim(now: number): void {
    this.lastInterimAt = now;
    if (now - this.turnStart > MAX_INTERIM_S) return; // no phrase is this long: save the work
    const { pcm, offset } = this.slice(this.audioStart(), now);
    const r = this.recognizer.recognize(pcm, true, this.band());
    const words = this.partWords(r);
    const text = words.map((w) => w.word).join(' ');
    if (text === this.lastInterimText) return;
    this.lastInterimText = text;
    this.results(words, undefined, offset, false, false);
  }

  /** Ends the current part: at speech end (speech_final) or at a forced split (60 s). */
  private finishPart(end: number, speechFinal: boolean): void {
    if (this.partStart === undefined) return;
    const { pcm, offset } = this.slice(this.audioStart(), end + (speechFinal ? PAD_S : 0));
    // At a split the speaker is still talking: only the words already spoken are final.
    const r = this.recognizer.recognize(pcm, !speechFinal, this.band());
    const words = this.partWords(r);
    this.emitted += words.length;
    if (!r && speechFinal) {
      this.io.send({
        type: 'Metadata', session_id: this.sessionId,
        warning: 'speech not recognized: the sandbox recognizes only phrases it has voiced or was given in its phrasebook',
        turn_id: this.turnId, start: round(this.partStart), end: round(end),
      });
    }
    this.results(words, r?.confidence, offset, true, speechFinal);
    if (!speechFinal) {
      this.partStart = end;
      this.lastInterimAt = end;
      this.lastInterimText = '';
      return;
    }
    const lastWordEnd = words.length ? round(words.at(-1)!.end + offset) : round(end);
    this.io.send({ type: 'UtteranceEnd', channel: 0, turn_id: this.turnId, last_word_end: lastWordEnd });
    const gender = genderFromPitch(medianPitch(pcm, 16000));
    this.io.send({ type: 'Gender', channel: 0, turn_id: this.turnId, label: gender.label, score: gender.score });
    const sentiment = sentimentOf(r?.text ?? '');
    this.io.send({ type: 'Sentiment', channel: 0, turn_id: this.turnId, label: sentiment.label, score: sentiment.score });
    this.turnId++;
    this.turnCount++;
    this.partStart = undefined;
    this.lastTurnEnd = end;
  }
}

const round = (v: number) => Math.round(v * 1000) / 1000;
