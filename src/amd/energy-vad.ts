/**
 * Speech by level at 8 kHz: a block is speech when it stands `aboveFloorDb` over the line's
 * noise floor, the quietest block of the last 10 s
 * (the whole time a decision takes: a greeting that talks for seconds must not become its own floor). A phone line's noise (hiss, a boiler, a
 * washing machine) is steady, so the floor follows it; a word's vowels stand well above it.
 */
const FLOOR_BLOCKS = 500; // 10 s of 20 ms blocks

/** Speech or not, block by block, by level over the line's noise floor. */
export class EnergyVad {
  private readonly levels = new Float64Array(FLOOR_BLOCKS);
  private n = 0;

  constructor(private readonly aboveFloorDb: number, private readonly minDbfs: number) {}

  /** The noise floor (dBFS) of the blocks seen so far. */
  get floor(): number {
    let min = Infinity;
    for (let i = 0; i < Math.min(this.n, FLOOR_BLOCKS); i++) min = Math.min(min, this.levels[i]!);
    return min;
  }

  /** One block's level (dBFS); true when it is speech. */
  push(dbfs: number): boolean {
    this.levels[this.n++ % FLOOR_BLOCKS] = dbfs;
    return dbfs >= this.minDbfs && dbfs >= this.floor + this.aboveFloorDb;
  }
}
