/**
 * hiwar beside LiveKit Agents for Node, on the same footing: the same bench caller (8 kHz, 20 ms
 * frames on one frame clock, 400 ms of speech a turn, the caller's own stopwatch), the same fake
 * service and model in their own process with fixed delays, the same subtraction of every hold.
 * Each run is a fresh process of one framework; the frameworks alternate, run after run, so a
 * change of load on the machine falls on both.
 *
 * Per run: framework-added time per turn (first agent audio handed to the line − end of the
 * caller's speech − held STT − held model − held synthesis − one caller frame), CPU per call (the
 * process's CPU over the run ÷ calls ÷ seconds, as a share of a core) and RSS per call (the largest
 * RSS during the calls less the RSS before them, ÷ calls), with the load before and after and the
 * process's run-queue wait.
 *
 * LiveKit Agents is not a dependency of hiwar: install it into `.bench-peer/` (or a folder named by
 * HIWAR_BENCH_PEER_DIR) with `npm install --prefix .bench-peer @livekit/agents@~1.9.0`. Without it
 * the bench runs hiwar alone and says so in one line.
 *
 * Usage: npm run bench -- peer [--quick] [calls=10] [turns=11] [runs=2] [pin=auto|off|1/0]
 * (`pin=`, bench/pin.ts: each framework's process on its own core, its fake on the rest.)
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { conditions, spanLine } from './conditions.ts';
import { pinArg, pinBench, type PinPlan } from './pin.ts';
import { spawnFakeService } from './fake-service.ts';
import { benchOptions, FRAME_MS, FrameClock, holdsPerTurn, pcts, round, startCall, table, type BenchArgs, type BenchCaller, type CallerPlan } from './harness.ts';
import { livekitRunner, PEER_INSTALL, peerDir, peerInstalled } from './peer-livekit.ts';
import { benchScript } from './script.ts';

type Framework = 'hiwar' | 'livekit';
type RunResult = Record<string, any>;

/** One framework's run in this process (the child's side). */
export async function peerRun({ rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { named } = benchOptions(rest);
  const framework = named.framework as Framework;
  const calls = Number(named.calls ?? 10);
  const turns = Number(named.turns ?? 11);
  pinBench(named.pin, { self: 'server' });
  const fake = await spawnFakeService({ sttMs: 200, llmMs: 200, ttsMs: 100 });
  try {
    const lk = framework === 'livekit' ? await livekitRunner(fake) : undefined;
    const plan = (i: number): CallerPlan => ({ turns, speechMs: 400, gapMs: 200 + ((i * 37) % 200) });
    const begin = (tag: string, p: CallerPlan, frames: FrameClock): { caller: BenchCaller; done: Promise<unknown> } =>
      lk ? lk.startCall(tag, p, frames) : startCall(fake, tag, p, frames);
    // Warm-up: two turns of every call, unmeasured, as in the latency bench.
    const warm = new FrameClock(10);
    await Promise.all(Array.from({ length: calls }, (_, i) => begin(`pw${i}`, { ...plan(i), turns: 2 }, warm).done));
    (globalThis as { gc?: () => void }).gc?.();
    const rss0 = process.memoryUsage().rss;
    let rssMax = rss0;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage().rss)), 250);
    const conds = conditions([fake.pid]);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const frames = new FrameClock(10);
    const running = Array.from({ length: calls }, (_, i) => begin(`peer${i}`, plan(i), frames));
    await Promise.all(running.map((c) => c.done));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    const holds = await fake.holds();
    const added: number[] = [];
    running.forEach((c, i) => {
      const h = holdsPerTurn(holds[`peer${i}`]);
      c.caller.turns.forEach((t, k) => {
        const hk = h[k];
        // The first turn of a call opens the model's connection: left out, as in the latency bench.
        if (k === 0 || !hk || t.firstAgentAudio === undefined || !Number.isFinite(hk.llm + hk.tts)) return;
        added.push(t.firstAgentAudio - t.speechEnd - hk.stt - hk.llm - hk.tts - FRAME_MS);
      });
    });
    return {
      bench: 'peer-run',
      framework,
      version: lk?.version ?? null,
      errors: lk ? lk.errors.length : 0,
      firstErrors: lk ? lk.errors.slice(0, 3) : [],
      calls,
      turns: added.length,
      added: pcts(added),
      cpuPctPerCall: round(((cpu.user + cpu.system) / 1e6 / seconds / calls) * 100, 2),
      rssMbPerCall: round((rssMax - rss0) / 2 ** 20 / calls, 2),
      seconds: round(seconds, 1),
      conditions: conds.end(),
    };
  } finally {
    await fake.close();
  }
}

async function child(framework: Framework, calls: number, turns: number, pin: PinPlan): Promise<RunResult> {
  const run = benchScript('run');
  const p = spawn(process.execPath, [...process.execArgv, run, 'peer-run', `framework=${framework}`, `calls=${calls}`, `turns=${turns}`, pinArg(pin)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => p.once('exit', r));
  if (code !== 0) throw new Error(`the ${framework} run exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as RunResult;
}

/** The parent: alternated runs of each framework in fresh processes, one table. */
export async function peer({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { named } = benchOptions(rest);
  const calls = Number(named.calls ?? (quick ? 3 : 10));
  const turns = Number(named.turns ?? (quick ? 4 : 11));
  const runs = Number(named.runs ?? (quick ? 1 : 2));
  // Resolved here, applied by each run's process to itself (the framework) and its fake.
  const pin = pinBench(named.pin, { self: 'none' });
  const withPeer = peerInstalled();
  if (!withPeer) console.log(`peer: LiveKit Agents is not installed in ${peerDir()}: hiwar alone (install: ${PEER_INSTALL})`);
  const frameworks: Framework[] = withPeer ? ['hiwar', 'livekit'] : ['hiwar'];
  const results: RunResult[] = [];
  for (let r = 0; r < runs; r++) {
    // Alternated, and the order flipped every run, so neither always runs first.
    for (const f of r % 2 ? [...frameworks].reverse() : frameworks) results.push(await child(f, calls, turns, pin));
  }
  const f = (p: { p50: number | null; p95: number | null; p99: number | null }) => `${p.p50} / ${p.p95} / ${p.p99}`;
  table(`peer: ${calls} concurrent calls × ${turns} turns per run, 8 kHz callers, fake delays stt 200 llm 200 tts 100 ms; framework-added p50 / p95 / p99 ms · CPU % of a core per call · RSS MB per call`, results.map((r) => [
    `${r.framework}${r.version ? ` ${r.version}` : ''}`,
    `${f(r.added)} · ${r.cpuPctPerCall} % · ${r.rssMbPerCall} MB`,
    `${r.turns} turns${r.errors ? `, ${r.errors} session errors (${r.firstErrors.join('; ')})` : ''}; ${spanLine(r.conditions)}`,
  ]));
  return { bench: 'peer', calls, turnsPerCall: turns, runs: results, livekitInstalled: withPeer };
}
