/**
 * `npm run bench -- telephony-density [--quick] [N …] [workers=N] [seconds=60] [phases=1|4…] [pin=auto|off|1/0]`: the
 * density headline. First the Twilio route (`hiwar serve`'s telephony server, Twilio Media
 * Streams over real WebSockets from a callers' process; with `workers=N` a real
 * `hiwar serve --workers N`), then the local transport at the same levels as the second row: per
 * call CPU (% of a core) and RSS, late agent frames (gaps inside a reply included), late caller
 * frames, each row with its conditions (the CPUs the server and the rig had: `pin=`, bench/pin.ts).
 * "Calls per core" is printed only from a row where neither the server's processes nor the rig's
 * (callers, fake service) were starved (bench/conditions.ts).
 */
import { affinityLine, STARVED_WAIT_SHARE, type Conditions } from './conditions.ts';
import { density } from './density.ts';
import type { BenchArgs } from './harness.ts';

/** The issue's targets for the Twilio route, per core (a quiet 2-core machine). */
export const TELEPHONY_TARGETS = { callsPerCore: 300, cpuPerCallPct: 0.3, rssPerCallMb: 1, lateCallerShare: 0.01, lateAgentFrames: 0 };

type Row = { calls: number } & Record<string, number | null>;

export async function telephonyDensity({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const levels = rest.filter((a) => /^\d+$/.test(a));
  const named = rest.filter((a) => !/^\d+$/.test(a));
  const seconds = named.find((a) => a.startsWith('seconds=')) ?? `seconds=${quick ? 10 : 60}`;
  const others = named.filter((a) => !a.startsWith('seconds=') && !a.startsWith('transport='));
  const chosen = levels.length ? levels : quick ? ['25', '50'] : ['100', '200', '300'];
  const twilio = await density({ quick, rest: [...chosen, seconds, 'transport=twilio', ...others] });
  const local = await density({ quick, rest: [...chosen, seconds, 'transport=local', ...others.filter((a) => !a.startsWith('workers=') && !a.startsWith('step='))] });
  const lines: { route: string; row: Row; c: Conditions }[] = [];
  for (const [route, r] of [['twilio', twilio], ['local', local]] as const) {
    const rows = r.levels as Row[];
    const cs = r.conditions as Conditions[];
    rows.forEach((row, i) => lines.push({ route, row, c: cs[i]! }));
  }
  const w = (twilio.workers as number | null) ?? null;
  console.log(`\ntelephony density: the Twilio route first${w ? ` (hiwar serve --workers ${w})` : ''}, the local transport second; ${seconds.slice(8)} s windows`);
  const head = ['route', 'calls', 'cpu %/call', 'rss/call MB', 'late agent', 'late caller %', 'calls/core', 'conditions'];
  console.log(head.join(' | '));
  for (const { route, row, c } of lines) {
    const callerShare = row.callerFrames ? (100 * row.lateCallerFrames!) / row.callerFrames : 0;
    // Calls per core from this row alone, and only when its processes got the cores they asked
    // for and the rig sent them the calls' whole work.
    const perCore = c.starved || !row.cpuPct ? 'starved: not reported' : c.rig?.starved ? 'rig starved: not reported' : String(Math.floor((100 * row.calls) / row.cpuPct));
    const wait = c.runQueueWaitShare === null ? 'wait ?' : `wait ${Math.round(c.runQueueWaitShare * 100)} %`;
    const rigWait = c.rig?.runQueueWaitShare == null ? '' : `, rig wait ${Math.round(c.rig.runQueueWaitShare * 100)} %${c.rig.starved ? ' (RIG STARVED)' : ''}`;
    console.log([route, row.calls, row.cpuPerCallPct, row.rssPerCallMb, `${row.lateAgentFrames}/${row.agentFrames}`, callerShare.toFixed(2), perCore, `load ${c.loadBefore}→${c.loadAfter}, ${wait}${rigWait}, ${c.warm ? 'warm' : 'cold'}, ${affinityLine(c.affinity)}`].join(' | '));
  }
  console.log(`(starved: the processes waited for a core more than ${STARVED_WAIT_SHARE * 100} % of the time they were runnable; a starved rig (callers, fake) sends and reads late: its late frames are not hiwar's; targets per core: ${TELEPHONY_TARGETS.callsPerCore} calls, ≤ ${TELEPHONY_TARGETS.cpuPerCallPct} % of a core and ≤ ${TELEPHONY_TARGETS.rssPerCallMb} MB per call, 0 late agent frames, ≤ ${TELEPHONY_TARGETS.lateCallerShare * 100} % late caller frames)`);
  return { bench: 'telephony-density', twilio, local, targets: TELEPHONY_TARGETS };
}
