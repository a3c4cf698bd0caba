/**
 * Steady tones in 8 kHz audio, block by block: a Goertzel filter bank over the beep band finds
 * each 20 ms block's strongest frequency and the share of the block's energy it holds (its
 * purity). A beep keeps one frequency and most of the energy for its whole length; speech moves
 * its pitch and spreads its energy over harmonics; line noise spreads it over the whole band.
 */
import type { ToneSegment } from './options.ts';

/** The analysis rate (Hz). */
export const TONE_RATE = 8000;
/** Samples per analysed block: 20 ms at 8 kHz. */
export const BLOCK = 160;
/** A block's length in ms. */
export const BLOCK_MS = (BLOCK / TONE_RATE) * 1000;
/** Filter spacing (Hz): the Hann main lobe of a 160-sample block is ±100 Hz, so 20 Hz loses little. */
const STEP_HZ = 20;
/** A tone whose frequency moves more than this between blocks is a new tone (SIT) or not a tone. */
const DRIFT_HZ = 40;

/** One block's analysis. */
export interface BlockTone {
  frequency: number;
  /** 0–1: the strongest frequency's share of the block's energy. */
  purity: number;
  /** The block's level, dBFS. */
  dbfs: number;
}

/** Goertzel filters at every `STEP_HZ` of the band, on Hann-windowed 160-sample blocks. */
export class ToneAnalyser {
  private readonly window = Float64Array.from({ length: BLOCK }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (BLOCK - 1)));
  private readonly freqs: number[] = [];
  private readonly coefs: number[] = [];
  /** A pure on-frequency tone's |X|² over the windowed energy: (Σw)² / (2Σw²). */
  private readonly pureRatio: number;
  private readonly buf = new Float64Array(BLOCK);

  constructor(band: [number, number]) {
    for (let f = band[0]; f <= band[1]; f += STEP_HZ) {
      this.freqs.push(f);
      this.coefs.push(2 * Math.cos((2 * Math.PI * f) / TONE_RATE));
    }
    let sw = 0;
    let sw2 = 0;
    for (const w of this.window) {
      sw += w;
      sw2 += w * w;
    }
    this.pureRatio = (sw * sw) / (2 * sw2);
  }

  /** Analyses one block of exactly `BLOCK` samples. */
  analyse(block: Int16Array): BlockTone {
    let energy = 0;
    let raw = 0;
    for (let i = 0; i < BLOCK; i++) {
      const v = block[i]! * this.window[i]!;
      this.buf[i] = v;
      energy += v * v;
      raw += block[i]! * block[i]!;
    }
    const dbfs = raw > 0 ? 10 * Math.log10(raw / BLOCK / (32768 * 32768)) : -120;
    if (energy === 0) return { frequency: 0, purity: 0, dbfs };
    let best = 0;
    let bestF = 0;
    for (let k = 0; k < this.freqs.length; k++) {
      const c = this.coefs[k]!;
      let s1 = 0;
      let s2 = 0;
      for (let i = 0; i < BLOCK; i++) {
        const s = this.buf[i]! + c * s1 - s2;
        s2 = s1;
        s1 = s;
      }
      const power = s1 * s1 + s2 * s2 - c * s1 * s2;
      if (power > best) {
        best = power;
        bestF = this.freqs[k]!;
      }
    }
    return { frequency: bestF, purity: Math.min(1, best / (energy * this.pureRatio)), dbfs };
  }
}

/** How a tone ended: into silence or noise (a beep's end), or into another tone (a SIT sequence). */
export type ToneEnd = ToneSegment & { into: 'other' | 'tone' };

/**
 * Joins tonal blocks of one frequency into segments. A block counts when its purity and level
 * pass; one missing block inside a tone is bridged (a noise burst on the line).
 */
export class ToneTracker {
  private seg: { start: number; end: number; sum: number; n: number } | undefined;
  private missed = 0;

  constructor(private readonly purity: number, private readonly minDbfs: number) {}

  /** The tone in progress (any length), if any. */
  get current(): ToneSegment | undefined {
    const s = this.seg;
    return s && { frequency: s.sum / s.n, start: s.start, end: s.end };
  }

  /** Whether a block analysis is tonal enough to be part of a tone. */
  isTonal(t: BlockTone): boolean {
    return t.purity >= this.purity && t.dbfs >= this.minDbfs;
  }

  /** One block [start, end) in clock ms; returns the segments that ended with it. */
  push(t: BlockTone, start: number, end: number): ToneEnd[] {
    const out: ToneEnd[] = [];
    const s = this.seg;
    if (this.isTonal(t)) {
      if (s && Math.abs(t.frequency - s.sum / s.n) <= DRIFT_HZ) {
        s.end = end;
        s.sum += t.frequency;
        s.n++;
        this.missed = 0;
        return out;
      }
      if (s) out.push({ ...this.current!, into: 'tone' });
      this.seg = { start, end, sum: t.frequency, n: 1 };
      this.missed = 0;
      return out;
    }
    if (s && ++this.missed > 1) {
      out.push({ ...this.current!, into: 'other' });
      this.seg = undefined;
      this.missed = 0;
    }
    return out;
  }
}
