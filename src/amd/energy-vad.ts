/**
 * Speech at 8 kHz by level and voicing. A block is speech when it stands `aboveFloorDb` over the
 * line's noise floor (the quietest block of the last 10 s: the whole time a decision takes, so a
 * greeting that talks for seconds does not become its own floor) and is voiced: its 40 ms window
 * repeats itself at a pitch period (54–400 Hz). A phone line's noise, steady or in bursts (a
 * boiler, a washing machine), is loud without repeating; words have vowels, which do.
 */
const FLOOR_BLOCKS = 500; // 10 s of 20 ms blocks
const MIN_LAG = 20; // 400 Hz at 8 kHz
const MAX_LAG = 148; // 54 Hz

/** Speech or not, block by block, by level over the line's noise floor and voicing. */
export class EnergyVad {
  private readonly levels = new Float64Array(FLOOR_BLOCKS);
  private n = 0;
  private prev = new Float64Array(0);

  constructor(
    private readonly aboveFloorDb: number,
    private readonly minDbfs: number,
    private readonly minVoicing: number,
  ) {}

  /** The noise floor (dBFS) of the blocks seen so far. */
  get floor(): number {
    let min = Infinity;
    for (let i = 0; i < Math.min(this.n, FLOOR_BLOCKS); i++) min = Math.min(min, this.levels[i]!);
    return min;
  }

  /** One block and its level (dBFS); true when it is speech. */
  push(block: Int16Array, dbfs: number): boolean {
    this.levels[this.n++ % FLOOR_BLOCKS] = dbfs;
    // Pre-emphasis: a low hum (mains, a motor) repeats too, and is no voice.
    const cur = new Float64Array(block.length);
    for (let i = 0; i < block.length; i++) cur[i] = block[i]! - 0.95 * (i ? block[i - 1]! : 0);
    const window = new Float64Array(this.prev.length + cur.length);
    window.set(this.prev);
    window.set(cur, this.prev.length);
    this.prev = cur;
    if (dbfs < this.minDbfs || dbfs < this.floor + this.aboveFloorDb) return false;
    return voicing(window) >= this.minVoicing;
  }
}

/** The strongest normalized autocorrelation at a pitch lag: 1 for a perfectly periodic window. */
export function voicing(x: Float64Array): number {
  let best = 0;
  for (let k = MIN_LAG; k <= MAX_LAG && k < x.length - MIN_LAG; k++) {
    let xy = 0;
    let xx = 0;
    let yy = 0;
    for (let i = 0; i + k < x.length; i++) {
      xy += x[i]! * x[i + k]!;
      xx += x[i]! * x[i]!;
      yy += x[i + k]! * x[i + k]!;
    }
    if (xx > 0 && yy > 0) best = Math.max(best, xy / Math.sqrt(xx * yy));
  }
  return best;
}
