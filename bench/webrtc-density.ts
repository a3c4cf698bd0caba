/**
 * WebRTC density: how many web calls one mediasoup worker and one Node process carry with the
 * agent's packets on time. Each call is a werift caller (in a child process, so its own CPU does
 * not count against the server) sending Opus, and an agent that speaks without pause: every
 * caller packet is decoded, every agent packet resampled from 24 kHz, Opus-encoded and sent on the
 * shared 20 ms clock. No speech service is involved: this measures the transport, not the model.
 *
 * Usage: npx tsx bench/webrtc-density.ts [calls=10,20,40] [seconds=10] [opusInputRate=24000]
 * (opusInputRate 48000: TTS audio resampled to 48 kHz before Opus, instead of encoded at 24 kHz.)
 * Prints a table, then as its last line one JSON object with every row.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../src/session/logger.ts';
import type { CallHost, CallOutcome } from '../src/server/types.ts';
import { ResamplingOutput } from '../src/transport/resampling-output.ts';
import type { Transport } from '../src/transport/types.ts';
import type { AgentOutput, OpusInputRate } from '../transports/webrtc/agent-output.ts';
import { createWebRtcPlugin } from '../transports/webrtc/index.ts';

const SECRET = 'bench-secret';


/** Child: joins N werift callers and keeps them sending until told to stop; reports what arrived. */
async function runCallers(url: string, n: number): Promise<void> {
  const { WeriftPeer } = await import('../test/helpers/werift-peer.ts');
  const peers: Awaited<ReturnType<typeof WeriftPeer.join>>[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${url}/webrtc/token`, { method: 'POST', headers: { authorization: `Bearer ${SECRET}` }, body: '{}' });
    const { token } = (await res.json()) as { token: string };
    peers.push(await WeriftPeer.join(url, token));
  }
  process.send!({ type: 'joined' });
  process.on('message', async (m: { type: string }) => {
    if (m.type === 'mark') {
      process.send!({ type: 'marked', received: peers.map((p) => p.from('agent').packets.length) });
    } else if (m.type === 'stop') {
      const received = peers.map((p) => p.from('agent').packets.length);
      await Promise.all(peers.map((p) => p.leave()));
      process.send!({ type: 'stopped', received });
      process.exit(0);
    }
  });
}

/** An agent that talks without pause: 24 kHz audio written ahead as the output drains. */
class TalkingHost implements CallHost {
  draining = false;
  readonly outputs: AgentOutput[] = [];
  readonly transports: Transport[] = [];
  callerFrames = 0;
  publicUrl(): string {
    return '';
  }
  async runCall(t: Transport): Promise<CallOutcome> {
    const out = t.output as AgentOutput;
    this.outputs.push(out);
    // 24 kHz like the TTS socket, converted at the edge as the session does.
    const edge = new ResamplingOutput(out);
    await edge.prepare(24000);
    this.transports.push(t);
    const chunk = Int16Array.from({ length: 4800 }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 220 * i) / 24000) * (0.6 + 0.4 * Math.sin((2 * Math.PI * 3 * i) / 24000))));
    const top = () => {
      while (out.writtenSeconds - out.position() < 0.4) edge.write({ samples: chunk, sampleRate: 24000, time: Date.now() });
    };
    top();
    const sub = out.playback$.subscribe(top);
    await new Promise<void>((resolve) =>
      t.audio$.subscribe({
        next: () => this.callerFrames++,
        complete: () => resolve(),
      }),
    );
    sub.unsubscribe();
    return 'caller-hangup';
  }
}

type Row = { calls: number; seconds: number; agentPackets: number; latePackets: number; maxLateMs: number; receivedRatio: number; callerPacketsIn: number; callerLost: number; nodeCpuPct: number; workerCpuPct: number; callsPerCore: number };

async function measure(n: number, seconds: number, rate: OpusInputRate): Promise<Row> {
  const host = new TalkingHost();
  const plugin = await createWebRtcPlugin({ host, apiSecret: SECRET, listenIp: '127.0.0.1', announcedAddress: '127.0.0.1', workers: { workers: 1 }, servePage: false, agent: { sampleRate: rate }, logger: createLogger('silent') });
  const server = createServer((req, res) => {
    void Promise.resolve(plugin.handleRequest?.(req, res, new URL(req.url ?? '/', 'http://x'))).then((mine) => mine || res.writeHead(404).end());
  });
  server.on('upgrade', (req, socket, head) => plugin.handleUpgrade?.(req, socket, head, new URL(req.url ?? '/', 'http://x')) || socket.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const child = fork(new URL(import.meta.url).pathname, ['--callers', url, String(n)], { execArgv: ['--import', 'tsx'] });
  const next = (type: string) =>
    new Promise<{ received?: number[] }>((resolve, reject) => {
      child.on('message', (m: { type: string; received?: number[] }) => m.type === type && resolve(m));
      child.once('exit', (code) => type !== 'stopped' && reject(new Error(`the callers' process exited (${code}) before "${type}"`)));
    });
  await next('joined');
  await new Promise((r) => setTimeout(r, 3000)); // settle: ICE, DTLS, first packets
  // Measure a window: counters and CPU from here to the end.
  const before = snapshot(host);
  const marked = next('marked');
  child.send({ type: 'mark' });
  const receivedBefore = (await marked).received!;
  Object.assign(plugin.clock.stats, { ticks: 0, late: 0, maxLateMs: 0 });
  const cpu0 = process.cpuUsage();
  const w0 = await workerCpu(plugin);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const w1 = await workerCpu(plugin);
  const afterSnap = snapshot(host);
  const stopped = next('stopped');
  child.send({ type: 'stop' });
  const receivedAfter = (await stopped).received!;
  await plugin.close?.();
  server.close();
  const agentPackets = afterSnap.packets - before.packets;
  const received = receivedAfter.reduce((a, b) => a + b, 0) - receivedBefore.reduce((a, b) => a + b, 0);
  const nodeCpuPct = ((cpu.user + cpu.system) / 1e6 / elapsed) * 100;
  const workerCpuPct = ((w1 - w0) / elapsed) * 100;
  return {
    calls: n,
    seconds: Math.round(elapsed * 10) / 10,
    agentPackets,
    latePackets: afterSnap.late - before.late,
    maxLateMs: Math.round(plugin.clock.stats.maxLateMs),
    receivedRatio: Math.round((received / Math.max(1, agentPackets)) * 1000) / 1000,
    callerPacketsIn: afterSnap.packetsIn - before.packetsIn,
    callerLost: afterSnap.lost - before.lost,
    nodeCpuPct: Math.round(nodeCpuPct),
    workerCpuPct: Math.round(workerCpuPct),
    callsPerCore: Math.round(n / ((nodeCpuPct + workerCpuPct) / 100)),
  };
}

function snapshot(host: TalkingHost) {
  const s = { packets: 0, late: 0, packetsIn: 0, lost: 0 };
  for (const o of host.outputs) (s.packets += o.stats.packets), (s.late += o.stats.latePackets);
  for (const t of host.transports) {
    const st = (t as unknown as { stats: { packetsIn: number; lostIn: number } }).stats;
    s.packetsIn += st.packetsIn;
    s.lost += st.lostIn;
  }
  return s;
}

/** CPU seconds the mediasoup worker has used (its own resource usage report). */
async function workerCpu(plugin: Awaited<ReturnType<typeof createWebRtcPlugin>>): Promise<number> {
  let total = 0;
  for (const w of plugin.workers) {
    const u = await w.getResourceUsage();
    total += (u.ru_utime + u.ru_stime) / 1000;
  }
  return total;
}

async function main(): Promise<void> {
  const steps = (process.argv[2] ?? '10,20,40').split(',').map(Number);
  const seconds = Number(process.argv[3] ?? 10);
  const rate = Number(process.argv[4] ?? 24000) as OpusInputRate;
  const rows: Row[] = [];
  for (const n of steps) rows.push(await measure(n, seconds, rate));
  console.log(`WebRTC density (werift callers in a child process, Opus both ways, agent talking without pause, Opus input ${rate / 1000} kHz; 1 mediasoup worker)`);
  console.log('calls  seconds  agent pkts  late  max late ms  received  caller pkts  lost  node CPU %  worker CPU %  calls/core');
  for (const r of rows) {
    console.log(
      [r.calls, r.seconds, r.agentPackets, r.latePackets, r.maxLateMs, r.receivedRatio, r.callerPacketsIn, r.callerLost, r.nodeCpuPct, r.workerCpuPct, r.callsPerCore]
        .map((v, i) => String(v).padStart([5, 7, 10, 5, 11, 8, 11, 5, 10, 12, 10][i]!))
        .join('  '),
    );
  }
  console.log(JSON.stringify({ bench: 'webrtc-density', workers: 1, opusInputRate: rate, rows }));
}

// Last: the classes above must exist before this top-level await runs.
if (process.argv[2] === '--callers') {
  await runCallers(process.argv[3]!, Number(process.argv[4]));
} else {
  await main();
}
