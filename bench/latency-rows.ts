/**
 * The latency bench's rows: framework-added time at 1, 10 and 100 concurrent calls in a warmed
 * process, and a cold row run in a fresh process (`node bench/run.ts latency <calls> … warmup=0`:
 * its first calls, the JIT and the start-up garbage included), then one summary table with each
 * row's conditions (load before and after, the process's run-queue wait).
 */
import { spawn } from 'node:child_process';
import { LATENCY_TARGETS, latency } from './latency.ts';
import { table } from './harness.ts';
import { spanLine } from './conditions.ts';
import { activePin, pinArg, type PinPlan } from './pin.ts';
import { benchScript } from './script.ts';

type Row = Record<string, any>;

/**
 * The cold row's `pin=`: the split this process runs with when it pinned; unpinned, the one given
 * (if any), so the child resolves it as this process did and says the same reason (it was given
 * `pin=off` and printed "as asked (pin=off)" when nobody had asked).
 */
export function coldPinArgs(pin: PinPlan | undefined, rest: string[]): string[] {
  if (pin?.pinned) return [pinArg(pin)];
  return rest.filter((a) => a.startsWith('pin='));
}

/** Runs the cold row in a fresh process and returns its JSON figures. */
async function coldRow(calls: number, turns: number, rest: string[], quick: boolean): Promise<Row> {
  const run = benchScript('run');
  // The pin already resolved here (latency() pinned this process): the child splits the same CPUs.
  const pin = activePin();
  const args = [...process.execArgv, run, 'latency', String(calls), String(turns), 'warmup=0', ...rest.filter((a) => /^(stream|phases|uplink|spread)=/.test(a)), ...coldPinArgs(pin, rest), ...(quick ? ['--quick'] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    process.stdout.write(d);
  });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`the cold row's process exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as Row;
}

/** `rows=1,10,100` warm rows and `cold=10` calls in a fresh process; the summary is printed last. */
export async function latencyRows(named: Record<string, string>, quick: boolean, _o: unknown, rest: string[]): Promise<Record<string, unknown>> {
  const counts = (named.rows ?? (quick ? '1,10' : '1,10,100')).split(',').map(Number);
  if (counts.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`rows= is a list of call counts, such as 1,10,100, not ${named.rows}`);
  const coldCalls = Number(named.cold ?? (quick ? 3 : 10));
  const turns = (calls: number) => (quick ? 4 : calls >= 100 ? 8 : 21);
  const passOn = rest.filter((a) => a.includes('=') && !/^(rows|cold|dump)=/.test(a));
  const results: { name: string; r: Row }[] = [];
  if (coldCalls > 0) results.push({ name: `cold, ${coldCalls} calls`, r: await coldRow(coldCalls, quick ? 4 : 6, passOn, quick) });
  for (const n of counts) {
    // Each row its own run (and its own warm-up) in this process: a row's figures are its calls'.
    results.push({ name: `warm, ${n} call${n > 1 ? 's' : ''}`, r: await latency({ quick, rest: [String(n), String(turns(n)), ...passOn] }) });
  }
  table('latency, all rows: framework-added p50 / p99 ms (conditions: load before → after, run-queue wait of hiwar\'s process, its CPUs and the fake\'s)', results.map(({ name, r }) => summaryRow(name, r)));
  return { bench: 'latency', rows: results.map(({ name, r }) => ({ name, calls: r.calls, turns: r.turns, stream: r.stream, added: r.added, voiceToVoice: r.voiceToVoice, modelTextMs: r.modelTextMs, cpuMs: r.cpuMs, conditions: r.conditions, warmup: r.warmup })), targets: LATENCY_TARGETS };
}

/**
 * One row of the summary: the figure, its target and the row's whole conditions line, STARVED
 * marks included (hiwar's and the rig's): the summary is the table people copy, and a row
 * without its verdict read as a quiet machine's.
 */
export function summaryRow(name: string, r: Row): [string, string, string] {
  const target = name.startsWith('cold') ? `p99 ≤ ${LATENCY_TARGETS.coldP99}` : `p50 ≤ ${LATENCY_TARGETS.addedP50}, p99 ≤ ${LATENCY_TARGETS.addedP99}`;
  return [`${name} (${r.turns} turns${r.stream ? ', streamed' : ''})`, `${r.added.p50} / ${r.added.p99}`, `${target}; ${spanLine(r.conditions)}; CPU ${r.cpuMs} ms`];
}
