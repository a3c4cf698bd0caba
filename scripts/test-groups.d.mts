// Types of scripts/test-groups.mjs for its test (test/scripts/test-groups.test.ts).

/** One of node:test's counts, as it prints them at the end of a run. */
export type Count = 'tests' | 'suites' | 'pass' | 'fail' | 'cancelled' | 'skipped' | 'todo';
/** Patterns of process-wide state, each with what it means. */
export const PROCESS_WIDE: [RegExp, string][];
export const COUNTS: Count[];
export const GROUP_LIMITS: { maxS: number; maxFiles: number };
export function ownProcessReason(root: string, file: string, read?: (path: string) => string): string | undefined;
export function groupFiles(files: string[], expected: (file: string) => number, limits?: { maxS: number; maxFiles: number }): string[][];
export function groupEntry(files: string[], compiled: (file: string) => string): string;
export function countResults(lines: string[]): Record<Count, number>;
/** One file's part of a group's report. */
export interface FileReport {
  file: string;
  report: string;
  counts: Record<Count, number>;
  s: number;
  done: boolean;
  failed: boolean;
}
export function splitGroupReport(out: string, files: string[]): { reports: FileReport[]; rest: string };
