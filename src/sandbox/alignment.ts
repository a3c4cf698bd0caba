import type { TimedWord, Voiced } from './engines/espeak.ts';

export interface CharAlignment {
  characters: string[];
  character_start_times_seconds: number[];
  character_end_times_seconds: number[];
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/** Spreads a span's time evenly over its characters. */
function spread(out: CharAlignment, chars: string[], start: number, end: number): void {
  const step = chars.length ? (end - start) / chars.length : 0;
  chars.forEach((c, i) => {
    out.characters.push(c);
    out.character_start_times_seconds.push(r3(start + i * step));
    out.character_end_times_seconds.push(r3(start + (i + 1) * step));
  });
}

/**
 * Character timings over the submitted text: every character (break tags and punctuation
 * included) gets the time span of the piece it belongs to, so the characters concatenate back
 * to the text exactly. Word spans are measured from the synthesis, not estimated.
 */
export function alignText(text: string, spans: Voiced['spans']): CharAlignment {
  const out: CharAlignment = { characters: [], character_start_times_seconds: [], character_end_times_seconds: [] };
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.charStart - b.charStart)) {
    if (s.charStart > at) spread(out, [...text.slice(at, s.charStart)], s.start, s.start);
    // Code units, not code points: a surrogate pair would otherwise split across pieces.
    spread(out, splitChars(text.slice(s.charStart, s.charEnd)), s.start, s.end);
    at = s.charEnd;
  }
  if (at < text.length) {
    const t = spans.at(-1)?.end ?? 0;
    spread(out, splitChars(text.slice(at)), t, t);
  }
  return out;
}

const splitChars = (s: string) => [...s];

/** Timings over the engine's normalized text: the spoken words joined by single spaces. */
export function alignNormalized(words: TimedWord[]): CharAlignment {
  const out: CharAlignment = { characters: [], character_start_times_seconds: [], character_end_times_seconds: [] };
  words.forEach((w, i) => {
    if (i > 0) spread(out, [' '], words[i - 1]!.end, w.start);
    spread(out, [...w.word], w.start, w.end);
  });
  return out;
}
