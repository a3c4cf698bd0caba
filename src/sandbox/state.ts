import { builtInVoices, findModel, type SandboxModel, type SandboxVoice } from './catalogue.ts';
import { AudioTooLongError, type TimedWord, type Voiced } from './engines/espeak.ts';
import { renderLine, type Rendered } from './engines/render-cache.ts';
import { FileSigner } from './files.ts';
import { learnedMelPower } from './engines/mel-cache.ts';
import { Recognizer, type TemplateWord } from './engines/recognizer.ts';
import { tokenize } from './engines/tokenize.ts';
import { badRequest, notFound } from './http/errors.ts';
import { KeyStore } from './keys.ts';

export interface SynthResult {
  pcm: Int16Array;
  sampleRate: number;
  words: TimedWord[];
  spans: Voiced['spans'];
}

export interface StoredFile {
  bytes: Uint8Array;
  contentType: string;
}

export interface StoredTranscript {
  id: string;
  owner: string;
  text: string;
  turns: { start: number; end: number; text: string; speaker?: number }[];
}

/** Everything one sandbox instance remembers: keys, voices, phrases it can recognize, jobs. */
export class SandboxState {
  readonly voices = new Map<string, SandboxVoice>();
  readonly recognizer = new Recognizer();
  readonly files = new Map<string, StoredFile>();
  readonly transcripts = new Map<string, StoredTranscript>();
  readonly diarizations = new Map<number, StoredTranscript>();
  nextDiarizationId = 1;
  /** Protocol timings; tests shorten them to run on a budget. */
  timing = { listenIdleMs: 12_000, forcedSplitS: 60, aheadLimitS: 60 };
  /**
   * Fault injection for testing clients, over real sockets:
   * - `ttsSocketSilent`: the TTS socket accepts text and never answers (seen on the live service);
   * - `ttsSocketAuthFails`: every initConnection is answered 40101, as live did to header-only
   *   auth, while HTTP still works;
   * - `listenBlackhole`: the next `times` /listen connections go dark after `afterAudioS` seconds
   *   of audio: nothing is read (pings go unanswered) and nothing is sent, the socket stays open
   *   (a black-holed network path);
   * - `ttsStall`: on the next `times` TTS sockets, audio stops after `afterAudioS` seconds of a
   *   generation, mid-sentence, and the socket stays open and silent;
   * - `listenDown`: /listen refuses every connection with 503 (the service is down);
   * - `httpBusy`: the next `times` HTTP requests (to `path` only, when given, e.g.
   *   `/minutes-of-meeting/transcribe`) are answered 429 / 42901 with a Retry-After, as the
   *   service does when the key's concurrency is used up elsewhere.
   */
  faults: {
    ttsSocketSilent: boolean;
    ttsSocketAuthFails: boolean;
    listenDown?: boolean;
    listenBlackhole?: { afterAudioS: number; times: number };
    ttsStall?: { afterAudioS: number; times: number };
    httpBusy?: { times: number; path?: string; retryAfterS?: number };
  } = { ttsSocketSilent: false, ttsSocketAuthFails: false };

  /** Takes one use of `httpBusy` for a request to `path`: true when it is answered 429. */
  takeBusy(path: string): boolean {
    const f = this.faults.httpBusy;
    if (!f || f.times <= 0 || (f.path && f.path !== path)) return false;
    f.times--;
    return true;
  }

  /** Takes one use of a counted fault: true when this connection gets it. */
  takeFault(name: 'listenBlackhole' | 'ttsStall'): { afterAudioS: number } | undefined {
    const f = this.faults[name];
    if (!f || f.times <= 0) return undefined;
    f.times--;
    return { afterAudioS: f.afterAudioS };
  }
  /**
   * Resource limits that keep one request from taking the process down. Tests shrink them.
   */
  limits = {
    /** Request headers must arrive within this. @default 20000 ms */
    headersTimeoutMs: 20_000,
    /** A whole request (headers and body) must arrive within this: 200 MB at 2 Mbit/s. @default 900000 ms */
    requestTimeoutMs: 900_000,
    /** A request body that sends nothing for this long is answered 408 and closed. @default 30000 ms */
    bodyIdleMs: 30_000,
    /** Audio one synthesis request (HTTP or one generation on the TTS socket) may produce. @default 600 s */
    maxSynthesisSeconds: 600,
    /** A TTS socket must send initConnection within this. @default 10000 ms */
    ttsInitMs: 10_000,
    /** A legacy STT socket with no message for this long is closed. @default 30000 ms */
    legacyIdleMs: 30_000,
  };
  /** Signs the /files/ URLs handed out (voice samples, denoise results). */
  readonly signer = new FileSigner();
  /**
   * Behaviours the live service has been reported to show that differ from the spec's
   * reading, for testing clients against both
   * (docs/service-behaviour.md#where-a-generation-ends-on-the-text-to-speech-socket).
   * `ttsIsFinalOnBatches`: the TTS socket sets `isFinal: true` on every audio batch, not only on
   * the empty end-of-generation message that still follows. `ttsNoEndMarker`: no empty end
   * message; the last audio batch of a flushed generation carries the `isFinal` instead.
   */
  quirks = { ttsIsFinalOnBatches: false, ttsNoEndMarker: false };

  constructor(
    readonly keys: KeyStore,
    /** Base URL of downloadable files (voice samples, denoised audio); set once listening. */
    public fileBase: string,
    readonly hooks: { diacritize?: (text: string) => Promise<string>; translate?: (text: string, to: string) => AsyncIterable<string> } = {},
  ) {
    for (const v of builtInVoices(fileBase)) this.voices.set(v.record.voice_id, v);
  }

  model(id: string, kind: 'tts' | 'stt'): SandboxModel {
    const m = findModel(id, kind);
    if (!m) throw notFound(`Model not found: ${id}`);
    return m;
  }

  voice(id: string | undefined): SandboxVoice {
    if (!id) throw badRequest('voice_id is required');
    const v = this.voices.get(id);
    if (!v) throw badRequest(`voice_id ${id} does not exist`);
    return v;
  }

  /**
   * Voices text with a catalogue voice at `sampleRate`, and remembers the phrase (and each of
   * its clauses) so that the recognizer knows it when it comes back.
   */
  async synthesize(text: string, voiceId: string, opts: { speed?: number; sampleRate?: number } = {}): Promise<SynthResult> {
    const voice = this.voice(voiceId);
    const speed = opts.speed ?? 1;
    const rate = opts.sampleRate ?? 24000;
    let out: Rendered;
    try {
      out = await renderLine(text, voice.espeak, speed, rate, this.limits.maxSynthesisSeconds);
    } catch (err) {
      if (err instanceof AudioTooLongError) throw badRequest(err.message, 40002);
      throw err;
    }
    await this.remember(text, out.words, voiceId, () => (rate === 16000 ? out : renderLine(text, voice.espeak, speed, 16000)));
    return { pcm: out.samples, sampleRate: rate, words: out.words, spans: out.spans };
  }

  /**
   * Adds a phrasebook entry: voiced with every catalogue voice so any of them is recognized, or
   * with `voiceIds` only (a test whose caller speaks with one voice: a fifth of the work).
   */
  async learnPhrase(text: string, voiceIds?: readonly string[]): Promise<void> {
    for (const v of this.voices.values()) {
      if (v.record.type !== 'premade' || (voiceIds && !voiceIds.includes(v.record.voice_id))) continue;
      const at16k = await renderLine(text, v.espeak, 1, 16000);
      await this.remember(text, at16k.words, v.record.voice_id, () => at16k);
    }
  }

  /** `at16k`: the line at 16 kHz, asked for only when the recognizer lacks the line or a clause. */
  private async remember(text: string, words: TimedWord[], voiceKey: string, at16k: () => Rendered | Promise<Rendered>): Promise<void> {
    if (!words.length) return;
    // Clauses: a caller may say one sentence of a longer line on its own.
    const clauses = splitClauses(text, words);
    const parts = clauses.length < 2 ? [] : clauses;
    if ([text, ...parts.map((c) => c.text)].every((t) => this.recognizer.knows(t, voiceKey))) return;
    const pcm16 = (await at16k()).samples;
    const pieces: { text: string; pcm: Int16Array; words: TemplateWord[] }[] = [{ text, pcm: pcm16, words }];
    for (const c of parts) {
      const from = Math.max(0, Math.floor((c.words[0]!.start - 0.02) * 16000));
      const to = Math.min(pcm16.length, Math.ceil((c.words.at(-1)!.end + 0.02) * 16000));
      const offset = from / 16000;
      const cw = c.words.map((w) => ({ word: w.word, start: w.start - offset, end: w.end - offset }));
      pieces.push({ text: c.text, pcm: pcm16.subarray(from, to), words: cw });
    }
    // The features of a line or clause a sandbox learnt before are read, not computed; all are
    // added at once, in order, as before.
    const mels = await Promise.all(pieces.map((p) => (this.recognizer.knows(p.text, voiceKey) ? undefined : learnedMelPower(p.pcm))));
    pieces.forEach((p, i) => this.recognizer.add(p.text, p.pcm, p.words, voiceKey, mels[i]));
  }
}

/** Words grouped by the punctuation pauses between them. */
function splitClauses(text: string, words: TimedWord[]): { text: string; words: TimedWord[] }[] {
  const pauses = tokenize(text).filter((p) => p.kind === 'pause').map((p) => p.start);
  const out: { text: string; words: TimedWord[] }[] = [];
  let current: TimedWord[] = [];
  let p = 0;
  for (const w of words) {
    let crossed = false;
    while (p < pauses.length && pauses[p]! < w.charStart) {
      p++;
      crossed = true;
    }
    if (crossed && current.length) {
      out.push({ text: text.slice(current[0]!.charStart, current.at(-1)!.charEnd), words: current });
      current = [];
    }
    current.push(w);
  }
  if (current.length) out.push({ text: text.slice(current[0]!.charStart, current.at(-1)!.charEnd), words: current });
  return out;
}
