// Types of scripts/cpu-profile-summary.mjs for its test (test/scripts/cpu-profile.test.ts).

/** A V8 CPU profile as scripts/cpu-profile-hook.mjs writes it. */
export interface Profile {
  argv?: string[];
  /** Microseconds between samples (else the report's default). */
  intervalUs?: number;
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}
/** One frame of a profile's call tree. */
export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber?: number;
}
/** Where a frame's code lives. */
export interface Place {
  group: 'ours' | 'package' | 'node' | 'v8' | 'other';
  place: string;
}
/** Seconds of CPU added up over profiles. */
export interface Aggregate {
  total: number;
  loading: number;
  processes: number;
  byKind: Map<string, number>;
  byGroup: Map<string, number>;
  byPlace: Map<string, number>;
  byFunction: Map<string, number>;
}
export function placeOf(callFrame: CallFrame): Place | undefined;
export function processKind(argv?: string[]): string;
export const DEFAULT_INTERVAL_US: number;
export function aggregate(profiles: Profile[], options?: { intervalUs?: number }): Aggregate;
export function summarize(profiles: Profile[], options?: { top?: number; intervalUs?: number | undefined }): string;
