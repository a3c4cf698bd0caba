/**
 * Who answered an outbound call: the classes, the signals behind a decision, and the detector's
 * options with their defaults (`AMD_DEFAULTS`).
 */

/** What answered: a person, a voicemail greeting, a carrier announcement, or no clear answer. */
export type AmdClass = 'human' | 'machine-voicemail' | 'machine-unavailable' | 'uncertain';

/** A steady tone the detector heard (a voicemail beep, or one tone of a carrier's SIT). */
export interface ToneSegment {
  /** Hz. */
  frequency: number;
  /** Clock ms. */
  start: number;
  end: number;
}

/** What the decision rests on; times are ms since detection started. */
export interface AmdSignals {
  /** First speech heard (ms since the start), if any. */
  firstSpeechMs?: number;
  /** Length of the first utterance (speech joined across pauses shorter than `humanSilenceMs`). */
  firstUtteranceMs?: number;
  /** Speech heard in total. */
  speechMs: number;
  /** When (ms since the start) the call was first known to be a machine (a long greeting, a phrase, a tone). */
  machineMs?: number;
  /** The speech/silence pattern: a short word then waiting, or a long uninterrupted greeting. */
  pattern?: 'short-then-silence' | 'long-greeting' | 'silence';
  /** The voicemail beep, when one was heard. */
  beep?: ToneSegment;
  /** A carrier's special information tones (two or more steady tones in a row at different pitches). */
  sit?: ToneSegment[];
  /** The table phrase the transcript matched, with its class. */
  phrase?: { text: string; class: 'machine-voicemail' | 'machine-unavailable' };
  /** The transcript heard so far. */
  transcript: string;
}

/** The detector's answer. */
export interface AmdDecision {
  class: AmdClass;
  /** Clock ms when it was decided. */
  at: number;
  /** ms from the start of detection (the call answered) to the decision. */
  decisionMs: number;
  /** Why. */
  reason: string;
  /**
   * For `machine-voicemail`: the clock ms from which a message is recorded (the beep's end, or the
   * end of a greeting that had no beep); undefined when the greeting was still going at the limit.
   */
  messageAt?: number;
  /** For `machine-voicemail`: the clock ms the beep ended, when there was one. */
  beepEndAt?: number;
  signals: AmdSignals;
}

/** A carrier or voicemail phrase: its text (any script) and the class a transcript containing it means. */
export interface AmdPhrase {
  text: string;
  class: 'machine-voicemail' | 'machine-unavailable';
}

/** Options of the answering-machine detector (defaults: `AMD_DEFAULTS`). */
export interface AmdOptions {
  /**
   * Longest time from the start to a decision, except for a voicemail greeting already heard
   * (see `maxGreetingMs`): an undecided call is then `uncertain`.
   * @default 10000
   */
  maxDecisionMs?: number;
  /**
   * How long from the start a voicemail greeting is followed for its beep (greetings run 5 to
   * 15 s); at this point it is `machine-voicemail` with no message point.
   * @default 20000
   */
  maxGreetingMs?: number;
  /**
   * Silence after a first short utterance that makes it a person waiting for an answer.
   * @default 700
   */
  humanSilenceMs?: number;
  /**
   * A first utterance longer than this (pauses shorter than `humanSilenceMs` do not end it) is
   * a recorded greeting, not a person's "ألو".
   * @default 2000
   */
  greetingMs?: number;
  /**
   * Silence from the start with no speech after which the call is `uncertain` (a person who
   * waits for the caller to speak, or dead air).
   * @default 4000
   */
  initialSilenceMs?: number;
  /**
   * Silence after a greeting during which a beep (or the transcript of a carrier announcement)
   * is still awaited; after it, the voicemail is decided without a beep.
   * @default 2000
   */
  beepWaitMs?: number;
  /**
   * A steady tone this long is a beep.
   * @default 150
   */
  beepMinMs?: number;
  /**
   * Tones outside this band (Hz) are not beeps.
   * @default [400, 2000]
   */
  beepBand?: [number, number];
  /**
   * Share (0–1) of a 20 ms block's energy in its strongest frequency for the block to be tonal.
   * Speech spreads its energy over harmonics; a beep over line noise keeps most of it in one.
   * @default 0.6
   */
  tonePurity?: number;
  /**
   * A voiced block louder than the noise floor by this many dB is speech (the detector's own
   * VAD). Lower hears quieter speech in noise; higher cuts a greeting's quiet parts into pauses.
   * @default 9
   */
  speechAboveFloorDb?: number;
  /**
   * How periodic (0–1, the strongest normalized autocorrelation at a pitch period of 2.5–18 ms)
   * a loud block must be to be speech: vowels repeat, line noise does not.
   * @default 0.5
   */
  minVoicing?: number;
  /**
   * Blocks quieter than this (dBFS) are never speech.
   * @default -50
   */
  speechMinDbfs?: number;
  /**
   * Speech must last this long to count (drops clicks).
   * @default 60
   */
  minSpeechMs?: number;
  /**
   * Where speech/silence comes from: `energy`, the detector's own VAD on the audio it is fed
   * (level over the noise floor, and voicing); `external`, probabilities given to `speech()` (Silero VAD, for instance).
   * @default 'energy'
   */
  vad?: 'energy' | 'external';
  /**
   * Carrier and voicemail phrases; a transcript containing one decides the class. Default:
   * `AMD_PHRASES` (Arabic and English).
   */
  phrases?: AmdPhrase[];
  /**
   * Share of a phrase's words that must appear in the transcript (in order) for it to match.
   * @default 0.75
   */
  phraseCoverage?: number;
}

/**
 * Carrier announcements and voicemail prompts in Arabic (Gulf carriers' wording) and English.
 * Matched after `normalizeForMatch`, word by word.
 */
export const AMD_PHRASES: AmdPhrase[] = [
  { text: 'الرقم المطلوب مغلق', class: 'machine-unavailable' },
  { text: 'خارج نطاق التغطية', class: 'machine-unavailable' },
  { text: 'الهاتف المطلوب لا يمكن الوصول إليه', class: 'machine-unavailable' },
  { text: 'لا يمكن الوصول إليه حاليا', class: 'machine-unavailable' },
  { text: 'الرقم المطلوب غير موجود', class: 'machine-unavailable' },
  { text: 'الرقم المطلوب غير متاح', class: 'machine-unavailable' },
  { text: 'هذا الرقم غير مستخدم', class: 'machine-unavailable' },
  { text: 'الهاتف مغلق', class: 'machine-unavailable' },
  { text: 'subscriber unavailable', class: 'machine-unavailable' },
  { text: 'the subscriber you have dialled is not available', class: 'machine-unavailable' },
  { text: 'the number you have dialled is switched off', class: 'machine-unavailable' },
  { text: 'the number you have called is not reachable', class: 'machine-unavailable' },
  { text: 'out of coverage area', class: 'machine-unavailable' },
  { text: 'is not in service', class: 'machine-unavailable' },
  { text: 'الرجاء ترك رسالة', class: 'machine-voicemail' },
  { text: 'اترك رسالتك', class: 'machine-voicemail' },
  { text: 'بعد سماع الصافرة', class: 'machine-voicemail' },
  { text: 'بعد الصافرة', class: 'machine-voicemail' },
  { text: 'البريد الصوتي', class: 'machine-voicemail' },
  { text: 'ترك رسالة صوتية', class: 'machine-voicemail' },
  { text: 'please leave a message', class: 'machine-voicemail' },
  { text: 'leave your message', class: 'machine-voicemail' },
  { text: 'after the tone', class: 'machine-voicemail' },
  { text: 'after the beep', class: 'machine-voicemail' },
  { text: 'voicemail', class: 'machine-voicemail' },
  { text: 'voice mail', class: 'machine-voicemail' },
];

/** The detector's defaults; each option is documented on `AmdOptions`. */
export const AMD_DEFAULTS: Required<AmdOptions> = {
  maxDecisionMs: 10_000,
  maxGreetingMs: 20_000,
  humanSilenceMs: 700,
  greetingMs: 2000,
  initialSilenceMs: 4000,
  beepWaitMs: 2000,
  beepMinMs: 150,
  beepBand: [400, 2000],
  tonePurity: 0.6,
  speechAboveFloorDb: 9,
  speechMinDbfs: -50,
  minVoicing: 0.5,
  minSpeechMs: 60,
  vad: 'energy',
  phrases: AMD_PHRASES,
  phraseCoverage: 0.75,
};
