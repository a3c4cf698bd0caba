/**
 * `npm run bench -- <name> [--quick] [args]`: runs one bench. The benches against the fake
 * service print a table and, as their very last line, one JSON object of their figures.
 * The older scripts (normalize, recognizer, recognizer-errors, call) run as they always did, with their own args.
 */
import { spawnSync } from 'node:child_process';
import type { BenchArgs } from './harness.ts';
import { benchScript, SCRIPT_LOADER } from './script.ts';

type Bench = (args: BenchArgs) => Promise<Record<string, unknown>>;

const BENCHES: Record<string, () => Promise<Bench>> = {
  latency: async () => (await import('./latency.ts')).latency,
  bargein: async () => (await import('./bargein.ts')).bargein,
  density: async () => (await import('./density.ts')).density,
  'telephony-density': async () => (await import('./telephony-headline.ts')).telephonyDensity,
  soak: async () => (await import('./soak.ts')).soak,
  profile: async () => (await import('./profile.ts')).profile,
  allocations: async () => (await import('./allocations.ts')).allocations,
  timers: async () => (await import('./timers.ts')).timers,
  'telephony-edge': async () => (await import('./telephony-edge.ts')).telephonyEdge,
  llm: async () => (await import('./llm-cost.ts')).llmCost,
  'webrtc-density': async () => (await import('./webrtc-density.ts')).webrtcDensity,
  amd: async () => (await import('./amd.ts')).amd,
  'energy-vad': async () => (await import('./energy-vad-ab.ts')).energyVadAb,
  turns: async () => (await import('./turns.ts')).turns,
  resample: async () => (await import('./resample-cost.ts')).resampleCost,
  peer: async () => (await import('./peer.ts')).peer,
  'peer-run': async () => (await import('./peer.ts')).peerRun,
  'ws-frames': async () => (await import('./ws-frames.ts')).wsFrames,
  'ws-frames-run': async () => (await import('./ws-frames.ts')).wsFramesRun,
};
const SCRIPTS = ['normalize', 'recognizer', 'recognizer-errors', 'recognizer-trials', 'recognizer-rules', 'recognizer-features', 'call'];

const [name, ...rest] = process.argv.slice(2);
if (name && SCRIPTS.includes(name)) {
  const r = spawnSync(process.execPath, [...SCRIPT_LOADER, benchScript(name), ...rest.filter((a) => a !== '--quick')], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
const load = name ? BENCHES[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <${[...Object.keys(BENCHES), ...SCRIPTS].join('|')}> [--quick]`);
  process.exit(2);
}
const bench = await load();
let result: Record<string, unknown>;
try {
  result = await bench({ quick: rest.includes('--quick'), rest: rest.filter((a) => a !== '--quick') });
} catch (err) {
  // A wrong argument is one line (what the bench's error says, often its usage); the stack only
  // helps a developer, on request, as with the hiwar command.
  console.error(`bench ${name}: ${(err as Error).message}`);
  if (process.env.HIWAR_DEBUG) console.error((err as Error).stack);
  process.exit(1);
}
console.log(JSON.stringify(result));
// Sockets of ended calls may still be closing; the figures are out.
process.exit(0);
