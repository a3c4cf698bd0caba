/**
 * Readers of the fixture files written from the other side's documentation (test/fixtures/):
 * the platforms' documented messages and the ITU-T G.711 table. No hiwar code here, so the far
 * ends that use them share nothing with the transport they test.
 */
import { readFileSync } from 'node:fs';

/** One fixture file of `test/fixtures/platforms/<platform>/`. */
export function platformFixture<T = Record<string, any>>(platform: string, file = 'messages.json'): T {
  return JSON.parse(readFileSync(new URL(`../fixtures/platforms/${platform}/${file}`, import.meta.url), 'utf8'));
}

/** The ITU-T G.711 decoder output tables of `test/fixtures/codecs/g711-table.json`, 256 values each. */
export function g711Table(): { mulaw: number[]; alaw: number[] } {
  const t = JSON.parse(readFileSync(new URL('../fixtures/codecs/g711-table.json', import.meta.url), 'utf8'));
  const flat = (rows: string[]) => rows.flatMap((r) => r.trim().split(/\s+/).map(Number));
  return { mulaw: flat(t.mulaw), alaw: flat(t.alaw) };
}

/** The keys of an object, nested, as `a.b.c` paths (to compare a message's shape with the documented one). */
export function shape(v: unknown, at = ''): string[] {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return [at];
  return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => shape(x, at ? `${at}.${k}` : k)).sort();
}
