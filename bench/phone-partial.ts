/**
 * What a caller's number said digit by digit costs the phone task's turn checks (`normalizePhone`
 * on each interim transcript, `phoneMayGoOn` once it is whole, `phoneMayBecome` while it is not):
 * the first interim turn of a fresh process (CPU, user+sys, with any package it loads) and a whole
 * turn afterwards, and whether libphonenumber-js was loaded. Each number is run in its own process.
 * Usage: npx tsx bench/phone-partial.ts [processes=5]
 * The last line is one JSON object of the figures.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { phoneMayBecome, phoneMayGoOn } from '../src/text/phone-prefix.ts';
import { normalizePhone, type PhoneCountry } from '../src/text/validate.ts';

const CASES: [string, PhoneCountry][] = [['0501234567', 'SA'], ['0612345678', 'SA'], ['0501234567', 'AE'], ['50012345', 'KW']];
const cpuMs = (since?: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};

/** One turn: the digits as each interim transcript gives them. */
function turn(said: string, country: PhoneCountry): void {
  for (let i = 1; i <= said.length; i++) {
    const d = said.slice(0, i);
    if (normalizePhone(d, country)) phoneMayGoOn(d, country);
    else phoneMayBecome(d, country);
  }
}

if (process.argv[2] === '--child') {
  const [said, country] = [process.argv[3]!, process.argv[4] as PhoneCountry];
  const c0 = process.cpuUsage();
  turn(said, country);
  const firstMs = cpuMs(c0);
  const c1 = process.cpuUsage();
  for (let k = 0; k < 1000; k++) turn(said, country);
  const turnUs = cpuMs(c1);
  const loaded = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/libphonenumber-js/'));
  console.log(JSON.stringify({ firstMs: +firstMs.toFixed(2), turnUs: +turnUs.toFixed(1), loaded }));
} else {
  const processes = Number(process.argv[2] ?? 5);
  const figures: Record<string, { firstMs: number[]; turnUs: number[]; loaded: boolean }> = {};
  // Alternated: each round runs every case once, so the machine's load falls on all of them alike.
  for (let r = 0; r < processes; r++) {
    for (const [said, country] of CASES) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', said, country], { encoding: 'utf8' });
      const f = JSON.parse(out.trim().split('\n').at(-1)!) as { firstMs: number; turnUs: number; loaded: boolean };
      const row = (figures[`${country} ${said}`] ??= { firstMs: [], turnUs: [], loaded: f.loaded });
      row.firstMs.push(f.firstMs);
      row.turnUs.push(f.turnUs);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rows = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, { firstTurnCpuMs: median(v.firstMs), turnCpuUs: median(v.turnUs), libphonenumberLoaded: v.loaded }]));
  console.log(JSON.stringify({ bench: 'phone-partial', processes, load: loadavg()[0]!.toFixed(2), figures: rows }));
}
