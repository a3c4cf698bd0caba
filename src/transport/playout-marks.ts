/**
 * The marks placed on an output's audio (`TransportOutput.mark`): each resolves once the audio
 * written before it has left. Shared by the outputs that count what they sent themselves (the
 * paced output, the WebRTC agent outputs), so the rule is written once.
 */
export class PlayoutMarks {
  private marks: { at: number; resolve: () => void }[] = [];

  /**
   * @param tolerance how far past `sent` a mark may sit and still be due: positions counted in
   * seconds carry float error, positions in samples need none.
   */
  constructor(private readonly tolerance = 0) {}

  /** A mark at `at`, the position where the audio written so far ends. */
  add(at: number): Promise<void> {
    return new Promise((resolve) => this.marks.push({ at, resolve }));
  }

  /** Resolves the marks at or before `sent`; every mark once the output is `drained`. */
  settle(sent: number, drained = false): void {
    if (!this.marks.length) return;
    const due = this.marks.filter((m) => drained || m.at <= sent + this.tolerance);
    if (!due.length) return;
    this.marks = this.marks.filter((m) => !due.includes(m));
    for (const m of due) m.resolve();
  }

  /** Resolves every mark (the audio before them was dropped or will never leave). */
  releaseAll(): void {
    for (const m of this.marks.splice(0)) m.resolve();
  }
}
