/**
 * What the phone task's check "may this valid mobile still go on?" (`phoneMayGoOn`) costs per
 * call: the turn policy runs it whenever the digits said so far make a valid mobile, on each
 * interim transcript. CPU time per call (user+sys) after a warm-up, for a caller's own mobile
 * and for the cases where it waits (a Somali eight-digit mobile, a Tunisian's 216…).
 * Usage: npx tsx bench/phone-turn.ts [calls=2000]
 * The last line is one JSON object of the figures.
 */
import { loadavg } from 'node:os';
import { phoneMayGoOn } from '../src/text/phone-prefix.ts';
import type { PhoneCountry } from '../src/text/validate.ts';

const calls = Number(process.argv[2] ?? 2000);
const CASES: [string, PhoneCountry][] = [['0501234567', 'SA'], ['50012345', 'KW'], ['061512345', 'SO'], ['21620123', 'TN'], ['966501234567', 'KW']];
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

const figures: Record<string, { waits: boolean; cpuUsPerCall: number }> = {};
for (const [digits, country] of CASES) {
  for (let i = 0; i < 50; i++) phoneMayGoOn(digits, country);
  const c0 = cpuMs();
  for (let i = 0; i < calls; i++) phoneMayGoOn(digits, country);
  figures[`${country} ${digits}`] = { waits: phoneMayGoOn(digits, country), cpuUsPerCall: +(((cpuMs() - c0) * 1000) / calls).toFixed(1) };
}
console.log(JSON.stringify({ bench: 'phone-turn', calls, load: loadavg()[0]!.toFixed(2), figures }));
