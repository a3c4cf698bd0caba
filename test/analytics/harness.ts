import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { encodeWav } from '../../src/audio/wav.ts';
import { splitRecording } from '../../src/analytics/channels.ts';
import type { AnalyticsJob } from '../../src/analytics/job.ts';
import type { RecordingStore } from '../../src/analytics/store.ts';
import type { ServiceClient } from '../../src/service/client.ts';
import type { Clock } from '../../src/transport/clock.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { gatewayProtocol as gateway } from '../telephony/gateway.ts';

export { gateway };
import { pad, voiced } from '../helpers/sandbox.ts';
import { Deadline } from '../helpers/deadline.ts';

export const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
export const CALLER_VOICE = 'ar-najdi-male-2';
export const CALLER_LINE = 'كم رصيدي';

/** The caller's line, voiced by the sandbox in a male voice (the agent's is female). */
export async function callerLine(client: ServiceClient): Promise<Int16Array> {
  return pad(await voiced(client, CALLER_LINE, 16000, CALLER_VOICE), 16000, 0.2, 1.0);
}

/**
 * Where the speech is on each channel of a stored recording, for a failure's message: spans of
 * 20 ms frames above a speech level, a pause of 0.3 s or more ending one (a greeting missing
 * from the turns: absent, or there but broken up).
 */
export async function recordingProfile(location: string): Promise<string> {
  const wav = splitRecording(new Uint8Array(await readFile(location)));
  const frame = wav.sampleRate / 50;
  const spans = (pcm: Int16Array) => {
    const out: string[] = [];
    let from = -1;
    let quiet = 0;
    for (let f = 0; f * frame < pcm.length; f++) {
      let peak = 0;
      for (let i = f * frame; i < Math.min(pcm.length, (f + 1) * frame); i++) peak = Math.max(peak, Math.abs(pcm[i]!));
      if (peak > 1000) {
        if (from < 0) from = f;
        quiet = 0;
      } else if (from >= 0 && ++quiet >= 15) {
        out.push(`${(from * 0.02).toFixed(2)}–${((f - quiet + 1) * 0.02).toFixed(2)} s`);
        from = -1;
        quiet = 0;
      }
    }
    if (from >= 0) out.push(`${(from * 0.02).toFixed(2)} s to the end`);
    return out.join(', ') || 'silent';
  };
  return `speech of the caller: ${spans(wav.caller)}; of the agent: ${spans(wav.agent)}`;
}

/**
 * Waits until the agent has spoken and then been quiet for `quietMs` of call time (its turn is
 * over): on the far end's clock, since a stall of this process is no silence on the line.
 */
export async function agentDone(far: FarEnd, heardAtLeast: number, quietMs = 1000, timeoutMs = 60_000): Promise<void> {
  const deadline = new Deadline(timeoutMs);
  let last = far.played;
  let still = far.clock.now();
  for (;;) {
    if (deadline.expired) throw new Error(`timed out: the agent did not finish speaking (heard ${far.played.toFixed(1)} s)`);
    await new Promise((r) => setTimeout(r, 50));
    if (far.played !== last || far.buffered > 0) {
      last = far.played;
      still = far.clock.now();
    } else if (far.played >= heardAtLeast && far.clock.now() - still >= quietMs) return;
  }
}

/**
 * One call through `/telephony/pcm` as a caller would make it: hears the greeting, asks its
 * balance, hears the answer, hangs up. Returns the seconds of agent audio heard.
 */
export async function balanceCall(serverUrl: string, callId: string, line: Int16Array, clock: Clock): Promise<number> {
  const q = new URLSearchParams({ rate: '16000', call_id: callId, from: '+971500000001' });
  const far = new FarEnd(`${serverUrl.replace(/^http/, 'ws')}/telephony/pcm?${q}`, gateway(), clock);
  await far.start();
  await agentDone(far, 1);
  const greeting = far.played;
  await far.say(line);
  await agentDone(far, greeting + 1);
  far.hangup();
  await far.closed;
  return far.played;
}

/** A webhook receiver: a real HTTP server that keeps every delivery. */
export interface Receiver {
  url: string;
  deliveries: { headers: IncomingHttpHeaders; body: string }[];
  /** Every request that arrived, answered or not. */
  requests: number;
  /** Answer of the next requests: a status, or 'hang' to never answer. */
  answer: number | 'hang';
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const r: Receiver = { url: '', deliveries: [], requests: 0, answer: 200, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      r.requests++;
      if (r.answer === 'hang') return;
      if (r.answer === 200) r.deliveries.push({ headers: req.headers, body: Buffer.concat(parts).toString('utf8') });
      res.writeHead(r.answer).end();
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/calls`;
  r.close = () =>
    new Promise((res) => {
      server.closeAllConnections();
      server.close(() => res());
    });
  return r;
}

/**
 * A call recording made without a call (for failure drills): the caller's line on the left at
 * 0.3 s, the agent's reply on the right after it, as `CallRecorder` lays them out.
 */
export async function syntheticCall(client: ServiceClient, store: RecordingStore, jobId: string): Promise<AnalyticsJob> {
  const caller = await voiced(client, CALLER_LINE, 16000, CALLER_VOICE);
  const agent = await voiced(client, 'رصيدك ألف درهم', 16000, 'ar-hijazi-female-1');
  const rate = 16000;
  const agentAt = Math.round(0.3 * rate) + caller.length + Math.round(0.8 * rate);
  const len = agentAt + agent.length + Math.round(0.5 * rate);
  const stereo = new Int16Array(len * 2);
  caller.forEach((v, i) => (stereo[2 * (i + Math.round(0.3 * rate))] = v));
  agent.forEach((v, i) => (stereo[2 * (i + agentAt) + 1] = v));
  const key = `recordings/${jobId}.wav`;
  await store.put(key, encodeWav(stereo, rate, 2));
  return {
    jobId,
    call: { callId: jobId, provider: 'pcm', from: '+971500000002', parameters: {} },
    agent: 'call-centre',
    endedAt: new Date().toISOString(),
    ended: 'caller hung up',
    outcome: 'caller-hangup',
    durationSeconds: len / rate,
    recording: { key, sampleRate: rate, seconds: len / rate, channels: 2 },
    transcript: [
      { role: 'user', text: CALLER_LINE, at: 0.3 },
      { role: 'agent', text: 'رصيدك ألف درهم', at: agentAt / rate },
    ],
  };
}

/** A `hiwar` command as a child process, with its output kept. */
export interface Child {
  process: ChildProcess;
  output(): string;
  waitFor(re: RegExp, what: string, ms?: number): Promise<RegExpExecArray>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function hiwar(args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, HIWAR_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return {
    process: child,
    output: () => out,
    async waitFor(re, what, ms = 60_000) {
      const deadline = new Deadline(ms);
      for (;;) {
        const m = re.exec(out);
        if (m) return m;
        if (deadline.expired || child.exitCode !== null) throw new Error(`${what}: not seen (exit ${child.exitCode}):\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}

/** Polls until `cond` holds; fails naming `what`. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = new Deadline(ms);
  while (!(await cond())) {
    if (deadline.expired) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
