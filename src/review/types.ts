// The review page's model: plain JSON types, with no import, so the browser's script (page/)
// shares them without pulling Node's types in.

/** Loudness of each side of a recording, one value (0..1, the largest sample) per bucket. */
export interface Waveform {
  /** Buckets per second of audio. */
  perSecond: number;
  /** The caller's side (the recording's left channel). */
  caller: number[];
  /** The agent's side (the right channel). */
  agent: number[];
}

/** The parts a reply's latency is made of, in the order they happen. */
export const LATENCY_PARTS = ['recognition', 'decision', 'model', 'synthesis', 'playout'] as const;
/** One part of a reply's latency (recognition, decision, model, synthesis, playout). */
export type LatencyPart = (typeof LATENCY_PARTS)[number];

/**
 * An agent turn that is not the model's reply, and its name on the page: the greeting, text the
 * agent's code gave, or a line the session said on its own (`ReportTurn.line`).
 */
export const LINE_NAMES = {
  greeting: 'التحية (نص ثابت)',
  scripted: 'نص ثابت من كود الوكيل',
  out_of_service: 'رسالة تعذّر الخدمة',
  closing: 'رسالة الختام عند إيقاف الخادم',
  model_error: 'رسالة الاعتذار عن تعذّر الرد',
} as const;
/** What a line is (`LINE_NAMES`' keys; `ReportLineKind`). */
export type ReviewLineKind = keyof typeof LINE_NAMES;

/** A reply's latency, broken into the parts the turn's metrics measured. */
export interface ReviewLatency {
  /** End of the caller's speech → the reply's first audio leaving (voice to voice), else the parts' sum. */
  totalMs: number;
  parts: { part: LatencyPart; ms: number }[];
}

/** One turn as the page shows it: where it sits on the recording, what was said and what was heard. */
export interface ReviewTurn {
  index: number;
  role: 'user' | 'agent';
  /** Seconds on the recording's timeline. */
  start: number;
  end: number;
  /** What the caller said, or what the agent meant to say. */
  text: string;
  /** For an agent turn: the part of `text` the caller heard. */
  heard?: string;
  /** For an interrupted agent turn: the part of `text` the caller never heard. */
  unheard?: string;
  interrupted: boolean;
  agent?: string;
  task?: string;
  /** For an agent turn: a line, not the model's words (the greeting, the agent's code's text, a fixed line). */
  line?: ReviewLineKind;
  latency?: ReviewLatency;
}

/** A moment worth a mark on the timeline: a tool call, a handoff, a task. */
export interface ReviewMarker {
  kind: 'tool' | 'handoff' | 'task';
  /** Seconds on the recording's timeline. */
  at: number;
  label: string;
  failed?: boolean;
}

/** The post-call analytics shown beside a served call (from its `CallSummary`). */
export interface ReviewAnalytics {
  summary: string;
  minutes?: string;
  keywords: string[];
  sentiment: { overall?: string; score?: number; caller?: string; agent?: string };
  diarization: string;
  /** The diarized transcript, times on the recording's timeline. */
  turns: { role: string; start: number; end: number; text: string; sentiment?: string }[];
}

/** Everything the review page draws, as plain JSON. */
export interface ReviewModel {
  version: 1;
  title: string;
  agent: string;
  ended: string;
  outcome?: string;
  /** ISO time the call ended, when known. */
  endedAt?: string;
  /** The answering-machine detection's class, when it ran. */
  amd?: string;
  /** Length of the timeline (the recording, or the call when longer), in seconds. */
  seconds: number;
  waveform: Waveform;
  turns: ReviewTurn[];
  markers: ReviewMarker[];
  /** The slowest reply's latency, ms. */
  worstLatencyMs?: number;
  notices: string[];
  /** A note on the clock the latencies were measured on (the demo's scaled clock). */
  clockNote?: string;
  analytics?: ReviewAnalytics;
}
