/**
 * `npm run bench -- ws-frames [size=1920] [messages=20000] [passes=5]`: what one WebSocket message
 * costs in CPU on loopback, sent by a client (masked, as every client frame is) and received by a
 * server (unmasked) in one process, with ws's native masking (the optional `bufferutil` package)
 * and without it (`WS_NO_BUFFER_UTIL=1`, ws's own JavaScript loop). 1,920 bytes is one /listen
 * uplink batch (60 ms of 16 kHz audio); a Twilio media message is about 350. Each variant runs in a
 * child process of its own, alternated, best of `passes` (the least disturbed by other work). A
 * third variant has the server accept permessage-deflate and the client offer it (ws's default for
 * a client; hiwar's service sockets offer none): what compressing audio messages would cost.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { WebSocket, WebSocketServer } from 'ws';
import { loadNote } from './conditions.ts';
import { benchOptions, table, type BenchArgs } from './harness.ts';
import { benchScript } from './script.ts';

interface RunResult {
  native: boolean;
  deflate: boolean;
  usPerMessage: number;
}

/** PCM16-like bytes (a tone and deterministic noise): deflate's cost depends on what it is given. */
function audioLike(size: number): Buffer {
  const b = Buffer.alloc(size - (size % 2));
  let seed = 1;
  for (let i = 0; i < b.length / 2; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    b.writeInt16LE(Math.round(3000 * Math.sin(i / 7) + ((seed % 1600) - 800)), i * 2);
  }
  return b;
}

/** True when ws can load `bufferutil` in this process (installed, and not turned off). */
function nativeMasking(): boolean {
  if (process.env.WS_NO_BUFFER_UTIL) return false;
  try {
    createRequire(import.meta.url).resolve('bufferutil');
    return true;
  } catch {
    return false;
  }
}

/** One variant, in the current process: `messages` binary messages of `size` bytes, client to server. */
export async function wsFramesRun({ rest }: BenchArgs): Promise<Record<string, unknown>> {
  const o = benchOptions(rest).named;
  const size = Number(o.size ?? 1920);
  const messages = Number(o.messages ?? 20000);
  const deflate = o.deflate === '1';
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: deflate });
  await new Promise((r) => wss.once('listening', r));
  let received = 0;
  let allIn = () => {};
  wss.on('connection', (s) => s.on('message', () => ++received === messages && allIn()));
  const ws = new WebSocket(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`, { perMessageDeflate: deflate });
  await new Promise((r) => ws.once('open', r));
  if (deflate && !ws.extensions.includes('permessage-deflate')) throw new Error('permessage-deflate was not negotiated');
  const frame = audioLike(size);
  const done = new Promise<void>((r) => (allIn = r));
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < messages; i++) {
    ws.send(frame);
    // Let the socket drain now and then, as calls' 20 ms ticks would.
    if (i % 200 === 199) await new Promise((r) => setImmediate(r));
  }
  await done;
  const cpu = process.cpuUsage(cpu0);
  ws.terminate();
  wss.close();
  const result: RunResult = { native: nativeMasking(), deflate, usPerMessage: Math.round(((cpu.user + cpu.system) / messages) * 100) / 100 };
  return { ...result };
}

function runChild(native: boolean, rest: string[], deflate = false): Promise<RunResult> {
  const run = benchScript('run');
  const env = { ...process.env };
  if (native) delete env.WS_NO_BUFFER_UTIL;
  else env.WS_NO_BUFFER_UTIL = '1';
  const child = spawn(process.execPath, [...process.execArgv, run, 'ws-frames-run', ...rest, ...(deflate ? ['deflate=1'] : [])], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as RunResult) : reject(new Error(`ws-frames run exited ${code}`)))),
  );
}

/** The bench: both variants alternated, best pass of each, and the saving per message. */
export async function wsFrames({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const o = benchOptions(rest).named;
  const passes = Number(o.passes ?? (quick ? 2 : 5));
  const args = [`size=${o.size ?? 1920}`, `messages=${o.messages ?? (quick ? 2000 : 20000)}`];
  const before = loadNote();
  let native: RunResult | undefined;
  let js: RunResult | undefined;
  let zipped: RunResult | undefined;
  for (let p = 0; p < passes; p++) {
    const n = await runChild(true, args);
    const j = await runChild(false, args);
    const z = await runChild(true, args, true);
    if (!native || n.usPerMessage < native.usPerMessage) native = n;
    if (!js || j.usPerMessage < js.usPerMessage) js = j;
    if (!zipped || z.usPerMessage < zipped.usPerMessage) zipped = z;
  }
  const conditions = `${before} → ${loadNote()}, ${passes} passes alternated, best of each, each pass a fresh process`;
  table(`one WebSocket message of ${args[0]!.slice(5)} bytes, client send + server receive, CPU µs`, [
    [native!.native ? 'native masking (bufferutil)' : 'native masking: bufferutil NOT installed', native!.usPerMessage, 'µs'],
    ['JavaScript masking (WS_NO_BUFFER_UTIL=1)', js!.usPerMessage, 'µs'],
    ['permessage-deflate offered and accepted (ws\'s client default; hiwar offers none)', zipped!.usPerMessage, 'µs'],
  ]);
  console.log(conditions);
  return { bench: 'ws-frames', bufferutil: native!.native, nativeUs: native!.usPerMessage, jsUs: js!.usPerMessage, deflateUs: zipped!.usPerMessage, conditions };
}
