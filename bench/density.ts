import type { BenchArgs } from './harness.ts';
export async function density(_: BenchArgs): Promise<Record<string, unknown>> { throw new Error('todo'); }
