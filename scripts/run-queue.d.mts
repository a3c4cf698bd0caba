/** A process's state and niceness from one line of /proc/<pid>/stat (scripts/run-queue.mjs). */
export function parseStat(line: string): { state: string; nice: number } | undefined;

/** Processes running or ready to run at niceness 0 or less, the calling one aside. */
export function runnableNow(opts?: { proc?: string; self?: number }): number;

/** A meter: each call reads once more and returns the mean of the last `window` readings. */
export function runQueueMeter(opts?: { window?: number; read?: () => number }): () => number;
