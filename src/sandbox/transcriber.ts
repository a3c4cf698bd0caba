import { speechSegments } from '../audio/silero-vad.ts';
import { genderFromPitch, medianPitch } from './engines/pitch.ts';
import type { Recognizer, RecognizedWord } from './engines/recognizer.ts';
import { sentimentOf } from './text-analysis.ts';

export interface FileTurn {
  start: number;
  end: number;
  text: string;
  words: RecognizedWord[];
  f0: number | undefined;
  recognized: boolean;
}

export interface FileTranscript {
  text: string;
  words: RecognizedWord[];
  turns: FileTurn[];
  duration: number;
  /** Turns whose speech matched no known phrase. */
  unrecognized: number;
}

const PAD_S = 0.15;
/**
 * A segment the recognizer cannot match is tried again as the parts between its shorter pauses:
 * two speakers a half second apart (a quick answer) make one segment at the file's endpointing,
 * and the closed-set recognizer, which matches one phrase at a time, knew neither.
 */
const SPLIT_ENDPOINTING_MS = 250;

type Span = { start: number; end: number };

/** One segment as a turn: its padded audio matched by the recognizer. */
function turnOf(recognizer: Recognizer, samples16k: Int16Array, seg: Span): FileTurn {
  const from = Math.max(0, Math.floor((seg.start - PAD_S) * 16000));
  const to = Math.min(samples16k.length, Math.ceil((seg.end + PAD_S) * 16000));
  const audio = samples16k.subarray(from, to);
  const r = recognizer.recognize(audio);
  const offset = from / 16000;
  const words = (r?.words ?? []).map((w) => ({ ...w, start: round(w.start + offset), end: round(w.end + offset) }));
  return { start: round(seg.start), end: round(seg.end), text: r?.text ?? '', words, f0: medianPitch(audio, 16000), recognized: !!r };
}

/**
 * A whole recording: speech segments from the VAD, each matched by the closed-set recognizer
 * (one it cannot match, as its parts between shorter pauses when it knows one of them).
 * Segments it still cannot match keep their times with an empty text.
 */
export async function transcribeSamples(recognizer: Recognizer, samples16k: Int16Array, endpointingMs = 700): Promise<FileTranscript> {
  const turns: FileTurn[] = [];
  for (const seg of await speechSegments(samples16k, endpointingMs)) {
    const whole = turnOf(recognizer, samples16k, seg);
    const spans = whole.recognized || endpointingMs <= SPLIT_ENDPOINTING_MS ? [] : await speechSegments(samples16k.subarray(Math.floor(seg.start * 16000), Math.ceil(seg.end * 16000)), SPLIT_ENDPOINTING_MS);
    const parts = spans.length < 2 ? [] : spans.map((p) => turnOf(recognizer, samples16k, { start: seg.start + p.start, end: seg.start + p.end }));
    // Unknown speech stays one turn: the parts only when the recognizer knows one of them.
    if (parts.some((t) => t.recognized)) turns.push(...parts);
    else turns.push(whole);
  }
  return {
    text: turns.map((t) => t.text).filter(Boolean).join(' '),
    words: turns.flatMap((t) => t.words),
    turns,
    duration: round(samples16k.length / 16000),
    unrecognized: turns.filter((t) => !t.recognized).length,
  };
}

/**
 * Speakers told apart by pitch: turns whose median F0 differ by more than 20 % belong to
 * different speakers. A turn with no measurable pitch (a syllable alone between two silences,
 * a click) is given the speaker of the nearest turn in time that has one, as a diarizer would
 * not fail a call for a blip. When no turn has a pitch, speakers cannot be told apart and the
 * answer is undefined (the service's diarization.status "unavailable").
 */
export function speakersByPitch(turns: FileTurn[], cap = 8): { speakers: number[]; capReached: boolean } | undefined {
  const voiced = turns.filter((t) => t.f0 !== undefined);
  if (!voiced.length) return undefined;
  const centres: number[] = [];
  const ofVoiced = new Map<FileTurn, number>();
  for (const t of voiced) ofVoiced.set(t, speakerOf(t.f0!, centres, cap));
  const gap = (a: FileTurn, b: FileTurn) => Math.max(0, a.start - b.end, b.start - a.end);
  const speakers = turns.map((t) => ofVoiced.get(t) ?? ofVoiced.get(voiced.reduce((best, v) => (gap(t, v) < gap(t, best) ? v : best)))!);
  return { speakers, capReached: centres.length >= cap };
}

/** The speaker whose pitch centre is within 20 % of `f0`, a new one, or past the cap the nearest. */
function speakerOf(f0: number, centres: number[], cap: number): number {
  const i = centres.findIndex((c) => Math.abs(f0 - c) / c < 0.2);
  if (i >= 0) return i;
  if (centres.length >= cap) {
    // Nearest existing speaker once the cap is reached.
    let best = 0;
    centres.forEach((c, k) => (Math.abs(f0 - c) < Math.abs(f0 - centres[best]!) ? (best = k) : 0));
    return best;
  }
  centres.push(f0);
  return centres.length - 1;
}

export const turnGender = (t: FileTurn) => genderFromPitch(t.f0);
export const turnSentiment = (t: FileTurn) => sentimentOf(t.text);
const round = (v: number) => Math.round(v * 1000) / 1000;
