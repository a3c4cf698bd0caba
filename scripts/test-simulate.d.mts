// Types of scripts/test-simulate.mjs for its test (test/scripts/test-simulate.test.ts).

/** One file's times in a run. */
export interface FileTimes {
  file: string;
  s: number;
  cpu: number;
  lane: 'heavy' | 'light' | string;
}
/** How many heavy files may run at once (scripts/test-simulate.mjs says how each field counts). */
export interface Policy {
  name: string;
  min: number;
  max: number;
  budget: number;
  order: 'wall' | 'cpu' | 'waitFirst';
  idle?: { margin: number; rampS: number; windowS: number; recent?: boolean } | undefined;
  others?: { windowS: number } | undefined;
}
export function shareCores(demands: number[], capacity: number, weights?: number[]): number[];
export function policy(name: string, options?: Partial<Omit<Policy, 'name'>>): Policy;
export function simulate(
  files: FileTimes[],
  p: Policy,
  options?: { cores?: number; background?: number; hogs?: number },
): { wall: number; cpu: number; widest: number; share: number; events: { file: string; lane: string; start: number; end: number }[] };
export function readTimes(text: string): FileTimes[];
export const POLICIES: Policy[];
