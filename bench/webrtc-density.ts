/**
 * WebRTC density: how many web calls hiwar's server process and one mediasoup worker carry with
 * every agent packet on time. Each call is a werift caller sending Opus speech (in child processes of
 * their own: werift is WebRTC in pure JS and its CPU is not hiwar's) and an agent that talks
 * without pause: every caller packet is decoded, every agent frame Opus-encoded and sent on the
 * shared 20 ms clock. No speech service is involved: this measures the transport, not the model
 * (the `density` bench measures the session).
 *
 * Per N: agent packets sent and how many left > 20 ms past their due time (measured as each
 * leaves), the callers' arrival jitter (RFC 3550), the CPU of the server process and of the
 * worker, and calls per core = N / the cores those two used, and what held up each late tick
 * (bench/webrtc-trace.ts). A warm-up level (the smallest N unless --warmup=N; 0 for none) runs
 * first and is shown but not counted. The answer is the largest N such that every level up to it
 * had zero late agent packets.
 *
 * `npm run bench -- webrtc-density [--quick] [N…] [--seconds=S] [--warmup=N] [--warmup-seconds=S] [--rate=24000|48000] [--workers=W] [--complexity=C] [--nice=N] [--calls-per-thread=N] [--pin=auto|off|1/0]`
 * or `npx tsx bench/webrtc-density.ts` with the same arguments. `--pin=` (bench/pin.ts): the
 * server process and the mediasoup workers it starts on the server's core(s), the werift callers'
 * processes on the rest; `auto` by default, which on two CPUs shares them. Prints a table, then (through
 * bench/run.ts, or directly) one JSON object of every figure as its last line.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os, { setPriority } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { resample } from '../src/audio/resample.ts';
import { largestClean } from './harness.ts';
import { voiceText } from '../src/sandbox/engines/espeak.ts';
import { createLogger } from '../src/session/logger.ts';
import type { CallHost, CallOutcome } from '../src/server/types.ts';
import { ResamplingOutput } from '../src/transport/resampling-output.ts';
import type { Transport } from '../src/transport/types.ts';
import { AGENT_OUTPUT_DEFAULTS, type OpusInputRate } from '../transports/webrtc/agent-output.ts';
import type { ThreadedOutput } from '../transports/webrtc/threaded-output.ts';
import type { AgentParticipant } from '../transports/webrtc/agent-participant.ts';
import { createWebRtcPlugin, type WebRtcPlugin } from '../transports/webrtc/index.ts';
import { round, table, type BenchArgs } from './harness.ts';
import { conditions, spanLine, spanStarved, type SpanConditions } from './conditions.ts';
import { pinBench, rigCommand } from './pin.ts';
import type { CallersReport } from './webrtc-callers.ts';
import type { TraceReport } from './webrtc-trace.ts';
import { benchScript, SCRIPT_LOADER } from './script.ts';

/**
 * Loaded in each agent sender thread, where the packet clock runs: the tick trace. The thread
 * loads what this module is (TypeScript under tsx, JavaScript when compiled, as the test runner
 * runs it): a `.ts` observer cannot load in a compiled sender thread.
 */
const TRACE_IN_THREAD = new URL(import.meta.url.endsWith('.ts') ? './webrtc-trace-thread.ts' : './webrtc-trace-thread.js', import.meta.url).href;

export const WEBRTC_DENSITY_TARGETS = { callsPerCore: 40, latePackets: 0 };

const SECRET = 'bench-secret';
/** Callers per werift process: one process past this falls behind on its own clock. */
const CALLERS_PER_PROCESS = 25;
/** How long a callers' process may take to answer `mark` or `stop`. */
const CALLERS_ANSWER_MS = 30_000;
/** The callers' scheduling priority (nice value; the server keeps its own). */
const CALLERS_NICE = 10;

const LINE = 'مرحبا بك في خدمة العملاء، كيف يمكنني مساعدتك اليوم؟ رقم طلبك هو ثلاثة وأربعون، وسيصل خلال يومين إن شاء الله. هل تحتاج إلى أي شيء آخر؟';

/**
 * The agent's voice: an Arabic line voiced by the sandbox's speech engine at the TTS socket's
 * 24 kHz. Real speech, not a tone: Opus spends its time on speech, and a tone costs it less.
 */
async function agentVoice(): Promise<Int16Array> {
  const v = await voiceText(LINE, { name: 'ar', pitch: 50, wpm: 160 });
  return resample(v.samples, v.sampleRate, 24000);
}

/** An agent that talks without pause: 24 kHz speech written ahead, 0.2 s at a time, as the output drains. */
class TalkingHost implements CallHost {
  draining = false;
  readonly outputs: ThreadedOutput[] = [];
  readonly participants: AgentParticipant[] = [];
  constructor(private readonly voice: Int16Array) {}
  publicUrl(): string {
    return '';
  }
  async runCall(t: Transport): Promise<CallOutcome> {
    const out = t.output as ThreadedOutput;
    this.outputs.push(out);
    this.participants.push(t as AgentParticipant);
    // Converted at the edge as the session does (a pass-through at the default 24 kHz).
    const edge = new ResamplingOutput(out);
    await edge.prepare(24000);
    // Each call starts somewhere else in the line, so the calls do not speak in unison.
    let at = (this.outputs.length * 7919 * 480) % (this.voice.length - 4800);
    const top = () => {
      while (out.writtenSeconds - out.position() < 0.4) {
        edge.write({ samples: this.voice.subarray(at, at + 4800), sampleRate: 24000, time: Date.now() });
        at = at + 9600 > this.voice.length ? 0 : at + 4800;
      }
    };
    top();
    const sub = out.playback$.subscribe(top);
    await new Promise<void>((resolve) => t.audio$.subscribe({ complete: () => resolve() }));
    sub.unsubscribe();
    return 'caller-hangup';
  }
}

export interface WebRtcDensityRow {
  calls: number;
  seconds: number;
  agentPackets: number;
  /** Agent packets that left more than 20 ms past their due time. */
  latePackets: number;
  maxLateMs: number;
  /** Agent packets the callers received / sent. */
  receivedRatio: number;
  /** Callers' RFC 3550 jitter of the agent stream at the end: mean and worst over callers, ms. */
  jitterMeanMs: number;
  jitterMaxMs: number;
  /** The worst single arrival deviation from the 20 ms spacing at any caller, ms. */
  arrivalDeviationMaxMs: number;
  callerPacketsIn: number;
  callerLost: number;
  /** CPU of hiwar's server process and of the mediasoup worker, % of one core. */
  nodeCpuPct: number;
  workerCpuPct: number;
  loopDelayP99Ms: number;
  /** The werift callers' CPU (not hiwar's), % of one core, over their processes. */
  callersCpuPct: number;
  /** calls / (node + worker CPU in cores). */
  callsPerCore: number;
  /** Not counted: the warm-up level that runs before the others. */
  warmup?: boolean;
  /** The machine's 1-minute load average as the level started. */
  load?: number;
  /** The window's conditions: load before → after, this process's run-queue wait and its callers' (the rig). */
  conditions?: SpanConditions;
  /** What happened around each late tick of the packet clock (bench/webrtc-trace.ts). */
  trace: TraceReport;
}

interface Options {
  seconds: number;
  rate: OpusInputRate;
  workers: number;
  /** Calls per agent sender thread (the plugin's default unless given). */
  callsPerThread?: number;
  /** Opus encoder complexity (the output's default unless given). */
  complexity?: number;
  /**
   * Nice value for the server's event-loop thread and the mediasoup workers (negative needs
   * CAP_SYS_NICE), as media servers are run (FreeSWITCH -rp, Asterisk -p): on a shared machine
   * it shows which late packets were the other processes'. Unset: the priority they start with.
   */
  nice?: number;
}

/** Forks one process of werift callers; resolves once they have all joined. */
async function spawnCallers(url: string, n: number): Promise<{ child: ChildProcess; request: (type: 'mark' | 'stop') => Promise<CallersReport> }> {
  const [execPath, execArgv] = rigCommand(process.execPath, SCRIPT_LOADER);
  const child = fork(benchScript('webrtc-callers'), [url, SECRET, String(n)], { execPath, execArgv });
  // Joining has its own limit per caller (webrtc-callers.ts); a process too starved to answer
  // at all fails the level instead of holding the bench forever (seen at load 13).
  const waitFor = <T>(type: string, limitMs = Infinity) =>
    new Promise<T>((resolve, reject) => {
      const done = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
        clearTimeout(timer);
      };
      const onMessage = (m: { type: string }) => {
        if (m.type !== type) return;
        done();
        resolve(m as T);
      };
      const onExit = (code: number | null) => (done(), reject(new Error(`a callers' process exited (${code}) before "${type}"`)));
      const timer = Number.isFinite(limitMs) ? setTimeout(() => (done(), reject(new Error(`a callers' process did not answer "${type}" within ${limitMs / 1000} s`))), limitMs) : undefined;
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  await waitFor('joined');
  // Real callers run on their own machines; here they share the cores with the server, so once
  // joined (werift's DTLS handshakes are slow enough at full priority) they yield to it: the
  // server's lateness is then its own and the machine's, not the bench's.
  try {
    setPriority(child.pid!, CALLERS_NICE);
  } catch {
    // Not allowed here: the callers compete at the same priority.
  }
  return {
    child,
    request: (type) => {
      const reply = waitFor<CallersReport>(type === 'mark' ? 'marked' : 'stopped', CALLERS_ANSWER_MS);
      child.send({ type });
      return reply;
    },
  };
}

function snapshot(host: TalkingHost) {
  const s = { packets: 0, late: 0, packetsIn: 0, lost: 0 };
  for (const o of host.outputs) (s.packets += o.stats.packets), (s.late += o.stats.latePackets);
  for (const p of host.participants) (s.packetsIn += p.stats.packetsIn), (s.lost += p.stats.lostIn);
  return s;
}

/** CPU seconds the mediasoup workers have used (their own resource usage reports). */
async function workerCpu(plugin: WebRtcPlugin): Promise<number> {
  let total = 0;
  for (const w of plugin.workers) {
    const u = await w.getResourceUsage();
    total += (u.ru_utime + u.ru_stime) / 1000;
  }
  return total;
}

async function measure(n: number, o: Options, voice: Int16Array): Promise<WebRtcDensityRow> {
  const host = new TalkingHost(voice);
  const plugin = await createWebRtcPlugin({ host, apiSecret: SECRET, listenIp: '127.0.0.1', announcedAddress: '127.0.0.1', workers: { workers: o.workers }, servePage: false, agent: { sampleRate: o.rate, complexity: o.complexity }, senders: { observer: TRACE_IN_THREAD, callsPerThread: o.callsPerThread }, logger: createLogger('silent') });
  // setpriority on Linux is per thread: 0 is this (the event loop's) thread.
  if (o.nice !== undefined) for (const pid of [0, ...plugin.workers.map((w) => w.pid)]) setPriority(pid, o.nice);
  const server = createServer((req, res) => {
    void Promise.resolve(plugin.handleRequest?.(req, res, new URL(req.url ?? '/', 'http://x'))).then((mine) => mine || res.writeHead(404).end());
  });
  server.on('upgrade', (req, socket, head) => plugin.handleUpgrade?.(req, socket, head, new URL(req.url ?? '/', 'http://x')) || socket.destroy());
  // The trace listens first on each sender thread's clock, before any agent output subscribes (SenderPoolOptions.observer).
  const trace = (msg: 'listenLast' | 'start' | 'stop') => plugin.senders.observe(msg);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const procs = Math.ceil(n / CALLERS_PER_PROCESS);
  const callers = [];
  try {
    // One process at a time: joining is the costly part of werift (DTLS in JS).
    for (let i = 0; i < procs; i++) callers.push(await spawnCallers(url, Math.floor(n / procs) + (i < n % procs ? 1 : 0)));
    await sleep(3000); // settle: the last ICE and DTLS handshakes, first packets
    await trace('listenLast');
    // The window: counters and CPU from here to its end.
    const marked = await Promise.all(callers.map((c) => c.request('mark')));
    const before = snapshot(host);
    const maxLate0 = host.outputs.map((x) => x.stats.maxLateMs);
    for (const x of host.outputs) x.stats.maxLateMs = 0;
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const conds = conditions(callers.map((c) => c.child.pid!));
    const cpu0 = process.cpuUsage();
    const w0 = await workerCpu(plugin);
    await trace('start');
    const t0 = performance.now();
    await sleep(o.seconds * 1000);
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const window = conds.end();
    const after = snapshot(host);
    const w1 = await workerCpu(plugin);
    loop.disable();
    // With several sender threads, the one whose clock had the most late ticks.
    const traced = ((await trace('stop')) as TraceReport[]).reduce((a, b) => (b.lateTicks > a.lateTicks ? b : a));
    const maxLateMs = Math.max(0, ...host.outputs.map((x) => x.stats.maxLateMs));
    host.outputs.forEach((x, i) => (x.stats.maxLateMs = Math.max(x.stats.maxLateMs, maxLate0[i] ?? 0)));
    const stopped = await Promise.all(callers.map((c) => c.request('stop')));
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const received = sum(stopped.flatMap((r) => r.received)) - sum(marked.flatMap((r) => r.received));
    const jitter = stopped.flatMap((r) => r.jitterMs);
    const agentPackets = after.packets - before.packets;
    const nodeCpuPct = ((cpu.user + cpu.system) / 1e6 / elapsed) * 100;
    const workerCpuPct = ((w1 - w0) / elapsed) * 100;
    return {
      calls: n,
      seconds: round(elapsed)!,
      agentPackets,
      latePackets: after.late - before.late,
      maxLateMs: round(maxLateMs)!,
      receivedRatio: round(received / Math.max(1, agentPackets), 3)!,
      jitterMeanMs: round(sum(jitter) / Math.max(1, jitter.length), 2)!,
      jitterMaxMs: round(Math.max(0, ...jitter), 2)!,
      arrivalDeviationMaxMs: round(Math.max(0, ...stopped.flatMap((r) => r.maxDeviationMs)))!,
      callerPacketsIn: after.packetsIn - before.packetsIn,
      callerLost: after.lost - before.lost,
      nodeCpuPct: round(nodeCpuPct)!,
      workerCpuPct: round(workerCpuPct)!,
      loopDelayP99Ms: round(loop.percentile(99) / 1e6)!,
      callersCpuPct: round(((sum(stopped.map((r) => r.cpuSeconds)) - sum(marked.map((r) => r.cpuSeconds))) / elapsed) * 100)!,
      callsPerCore: Math.round(n / ((nodeCpuPct + workerCpuPct) / 100)),
      conditions: window,
      trace: traced,
    };
  } finally {
    for (const c of callers) if (c.child.exitCode === null) c.child.kill();
    await plugin.close?.();
    server.close();
  }
}

export async function webrtcDensity({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const opt = (name: string) => rest.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  // Before the first mediasoup worker and callers start: they inherit their side's CPUs.
  const pin = pinBench(opt('pin'), { self: 'server' });
  const levels = rest.filter((a) => /^\d+$/.test(a)).map(Number);
  if (!levels.length) levels.push(...(quick ? [10, 20] : [20, 40, 60]));
  levels.sort((a, b) => a - b);
  const o: Options = { seconds: Number(opt('seconds') ?? (quick ? 6 : 15)), rate: Number(opt('rate') ?? 24000) as OpusInputRate, workers: Number(opt('workers') ?? 1), complexity: opt('complexity') === undefined ? undefined : Number(opt('complexity')), nice: opt('nice') === undefined ? undefined : Number(opt('nice')), callsPerThread: opt('calls-per-thread') === undefined ? undefined : Number(opt('calls-per-thread')) };
  // The first level run in a process pays for warming up (the JIT on the server's per-packet
  // paths, a fresh mediasoup worker, the callers' processes starting): a level of its own that
  // is shown but not counted. Off by default with --quick.
  const warmupCalls = Number(opt('warmup') ?? (quick ? 0 : levels[0]));
  const voice = await agentVoice();
  let warmup: WebRtcDensityRow | undefined;
  if (warmupCalls > 0) {
    const load = loadavg();
    warmup = { ...(await measure(warmupCalls, { ...o, seconds: Number(opt('warmup-seconds') ?? o.seconds) }, voice)), warmup: true, load };
    console.error(`webrtc-density: warm-up (not counted): ${JSON.stringify(warmup)}`);
  }
  const rows: WebRtcDensityRow[] = [];
  let failed: { calls: number; error: string } | undefined;
  for (const n of levels) {
    const load = loadavg();
    try {
      rows.push({ ...(await measure(n, o, voice)), load });
    } catch (err) {
      // The callers could not all join (a starved machine): larger N would not fare better.
      failed = { calls: n, error: (err as Error).message };
      console.error(`webrtc-density: ${n} calls failed: ${failed.error}`);
      break;
    }
    console.error(`webrtc-density: ${JSON.stringify(rows.at(-1))}`);
  }
  const { best, firstLate } = largestClean(rows, (r) => r.latePackets);
  const res = {
    bench: 'webrtc-density',
    quick,
    seconds: o.seconds,
    workers: o.workers,
    opusInputRate: o.rate,
    opusComplexity: o.complexity ?? AGENT_OUTPUT_DEFAULTS.complexity,
    nice: o.nice ?? null,
    pin: { pinned: pin.pinned, server: pin.server, rig: pin.rig },
    warmup,
    levels: rows,
    maxCallsNoLatePackets: best?.calls ?? 0,
    callsPerCoreAtMax: best && !starved(best) ? best.callsPerCore : null,
    firstLevelWithLatePackets: firstLate?.calls ?? null,
    failed,
    targets: WEBRTC_DENSITY_TARGETS,
  };
  console.log(`\nwebrtc-density: ${o.seconds} s per level; werift callers in processes of their own (≤ ${CALLERS_PER_PROCESS} each, nice ${CALLERS_NICE}); Opus both ways; agent talking without pause, Opus input ${o.rate / 1000} kHz, complexity ${res.opusComplexity}; ${o.workers} mediasoup worker(s)${o.nice === undefined ? '' : `; server thread and workers at nice ${o.nice}`}; load = 1-min load average as the level started`);
  const head = ['calls', 'load', 'agent pkts', 'late', 'max late ms', 'received', 'jitter ms', 'jitter max', 'dev max ms', 'lost in', 'node %', 'worker %', 'loop p99', 'callers %', 'calls/core'];
  console.log(head.join('  '));
  for (const r of warmup ? [warmup, ...rows] : rows) {
    const cells = [r.warmup ? `${r.calls} warm-up, not counted` : r.calls, r.load?.toFixed(1) ?? '', r.agentPackets, r.latePackets, r.maxLateMs, r.receivedRatio, r.jitterMeanMs, r.jitterMaxMs, r.arrivalDeviationMaxMs, r.callerLost, r.nodeCpuPct, r.workerCpuPct, r.loopDelayP99Ms, r.callersCpuPct, starved(r) ? 'starved' : r.callsPerCore];
    console.log(cells.map((v, i) => String(v).padStart(head[i]!.length)).join('  '));
  }
  console.log('conditions (the window of each level; calls/core is not printed from a starved one: it is the machine\'s figure, not hiwar\'s):');
  (warmup ? [warmup, ...rows] : rows).forEach((r, i) => r.conditions && console.log(`  ${r.calls} calls${r.warmup ? ' (warm-up)' : ''}, WebRTC, ${i ? 'warm' : 'cold'} process: ${spanLine(r.conditions)}`));
  if (failed) console.log(`${failed.calls} calls: not measured (${failed.error})`);
  printTraces(warmup ? [warmup, ...rows] : rows);
  table('webrtc-density: summary', [
    ['calls with zero late agent packets at every level up to N (largest N)', res.maxCallsNoLatePackets, `≥ ${WEBRTC_DENSITY_TARGETS.callsPerCore}`],
    [best && starved(best) ? 'calls per core there: not reported, the level starved (run-queue wait > 10 %, hiwar or its callers)' : 'calls per core there (node + worker CPU)', res.callsPerCoreAtMax ?? '–', `≥ ${WEBRTC_DENSITY_TARGETS.callsPerCore}`],
    ['first level with late packets', res.firstLevelWithLatePackets ?? 'none', ''],
  ]);
  return res;
}

/** Per level: the packet clock's ticks, and for the late ones what held them up. */
function printTraces(rows: WebRtcDensityRow[]): void {
  console.log('\npacket clock per level (bench/webrtc-trace.ts): send phase of a tick (wall p99/max, CPU mean/p99), tick start past due (p99/max), GC pauses, heap growth, sender thread run-queue wait (% of the window)');
  for (const r of rows) {
    const t = r.trace;
    const causes = Object.entries(t.causes).map(([c, k]) => `${k} ${c}`).join(', ');
    const gc = Object.entries(t.gc).map(([kind, g]) => `${g.count} ${kind} (max ${g.maxMs})`).join(', ') || 'none';
    console.log(`${r.warmup ? `${r.calls} (warm-up)` : r.calls} calls: ${t.ticks} ticks, ${t.lateTicks} late${causes ? ` (${causes})` : ''}; send ${t.tickWorkP99Ms}/${t.tickWorkMaxMs} ms, cpu ${t.tickCpuMeanMs}/${t.tickCpuP99Ms} ms; start past due ${t.wakeLateP99Ms}/${t.wakeLateMaxMs} ms; GC ${gc}; heap ${t.heapGrowthMb} MB; run queue ${t.runQueuePct ?? '–'} %`);
    for (const w of t.worst) console.log(`    at ${w.atS} s: last packet +${w.lateMs} ms (start +${w.wakeLateMs}, send ${w.workMs} [cpu ${w.workCpuMs ?? '–'}], cpu before ${w.busyBeforeMs ?? '–'}, GC ${w.gcMs}${w.gcKinds ? ` ${w.gcKinds}` : ''}, run queue ${w.runQueueMs ?? '–'}) → ${w.cause}`);
  }
}

const loadavg = () => Math.round(os.loadavg()[0]! * 100) / 100;

/** A level whose window starved (bench/conditions.ts): its calls per core are not hiwar's. */
export const starved = (r: Pick<WebRtcDensityRow, 'conditions'>): boolean => !r.conditions || spanStarved(r.conditions);

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  console.log(JSON.stringify(await webrtcDensity({ quick: args.includes('--quick'), rest: args.filter((a) => a !== '--quick') })));
  process.exit(0);
}
