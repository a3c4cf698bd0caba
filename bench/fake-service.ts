/**
 * A fake of the voice service and of an OpenAI-compatible model for benchmarks: real HTTP and
 * WebSocket servers on a local port, near-zero engine cost and fixed delays, so a bench measures
 * hiwar and not the sandbox's espeak-ng and recognizer.
 *
 * - `/listen` (fake-listen.ts): end of speech is found by energy (a frame whose mean absolute sample is above
 *   `SPEECH_LEVEL` is speech). SpeechStarted when speech starts, an interim every 200 ms of
 *   speech, and the final (is_final + speech_final, then UtteranceEnd) `sttMs` after the first
 *   silent audio after speech arrived.
 * - `/websocket/text-to-speech` and `POST /text-to-speech/{model}` (fake-tts.ts): first audio `ttsMs` after the
 *   text, then `chunkMs` pieces of a quiet tone, `audioMsPerChar` of audio per character, sent
 *   `realtimeFactor` times faster than real time.
 * - `POST /v1/chat/completions` (streaming): the first token `llmMs` after the request, then the
 *   rest of a fixed one-sentence reply at once.
 *
 * Each answer reports the delay it actually held (`held_ms` in the message, `x-held-ms` on REST
 * TTS) and every hold is also kept per call for `GET /bench/holds`, so a bench subtracts real
 * holds, not nominal ones. The call is named by a tag the bench gives each call: the /listen
 * hotword, the TTS voice_id and the model name.
 *
 * Run it in its own process (`spawnFakeService`) so its work does not load the process measured;
 * `node --import tsx bench/fake-service.ts --stt 200 ...` prints `{"port":…}` once listening.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { fakeListen } from './fake-listen.ts';
import { streamedChat } from './fake-stream-reply.ts';
import { fakeRestTts, fakeTtsSocket, toneCache } from './fake-tts.ts';
import { rigCommand } from './pin.ts';
import { SCRIPT_LOADER } from './script.ts';

export interface FakeDelays {
  /** Final transcript after the end of speech (first silent audio received). @default 200 */
  sttMs: number;
  /** First model token after the request. @default 200 */
  llmMs: number;
  /** First synthesized audio after the text. @default 100 */
  ttsMs: number;
  /** Audio per character of text. @default 25 */
  audioMsPerChar: number;
  /** Length of each audio message. @default 100 */
  chunkMs: number;
  /** How much faster than real time audio is sent after the first piece. @default 2 */
  realtimeFactor: number;
  /**
   * 1: the model streams `STREAM_REPLY` token by token with gaps of `tokenGapMinMs` to
   * `tokenGapMaxMs` (a call's own seeded sequence), sentence ends mid-stream, digits, and a tool
   * call after the text; the request after the tool's result gets `STREAM_AFTER_TOOL`. 0: the
   * one-sentence reply at once after the first token. @default 0
   */
  streamReply: number;
  /** @default 10 */
  tokenGapMinMs: number;
  /** @default 40 */
  tokenGapMaxMs: number;
}

export const FAKE_DELAYS: FakeDelays = { sttMs: 200, llmMs: 200, ttsMs: 100, audioMsPerChar: 25, chunkMs: 100, realtimeFactor: 2, streamReply: 0, tokenGapMinMs: 10, tokenGapMaxMs: 40 };

/** The model's reply (the caller's words are `FAKE_TRANSCRIPT`, fake-listen.ts). */
export const FAKE_REPLY = ['حسنًا،', ' رصيدك', ' متاح', ' الآن', ' في', ' التطبيق.'];
export { STREAM_REPLY, STREAM_TOOL, STREAM_AFTER_TOOL } from './fake-stream-reply.ts';
export { FAKE_TRANSCRIPT, SPEECH_LEVEL } from './fake-listen.ts';

/** Delays held, and `speech`: when SpeechStarted was sent (the event a barge-in is decided on). */
export type HoldKind = 'stt' | 'llm' | 'tts' | 'speech';
export interface Hold {
  kind: HoldKind;
  /** The delay asked for and the one actually held (timers fire late on a busy machine). */
  nominalMs: number;
  heldMs: number;
  /** Epoch ms (sub-ms precision) when the hold ended: the answer handed to the socket. */
  at: number;
  /** A streamed reply's token write times, epoch ms (filled in as the stream goes). */
  tokensAt?: number[];
}

/** Records a hold of `call` that started at `started` (epoch ms) and ends now; returns the ms held. */
export type RecordHold = (call: string, kind: HoldKind, nominalMs: number, started: number, tokensAt?: number[]) => number;

const epochNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface FakeService {
  port: number;
  /** Service base URL (`/api/v1`) and the model's base URL (`/v1`). */
  baseUrl: string;
  llmBaseUrl: string;
  holds: Map<string, Hold[]>;
  close(): Promise<void>;
}

export async function startFakeService(delays: Partial<FakeDelays> = {}): Promise<FakeService> {
  const d: FakeDelays = { ...FAKE_DELAYS, ...delays };
  const holds = new Map<string, Hold[]>();
  const record: RecordHold = (call, kind, nominalMs, started, tokensAt) => {
    const at = epochNow();
    const heldMs = at - started;
    let list = holds.get(call);
    if (!list) holds.set(call, (list = []));
    list.push({ kind, nominalMs, heldMs: Math.round(heldMs * 100) / 100, at, ...(tokensAt ? { tokensAt } : {}) });
    return heldMs;
  };
  const toneBytes = toneCache();

  const server = createServer((req, res) => {
    // Holds are counted from the request's arrival: reading and parsing it is the fake's time.
    void handleHttp(req, res, epochNow()).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errorCode: 50000, errorMessage: err.message }));
    });
  });

  async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    return parts.length ? (JSON.parse(Buffer.concat(parts).toString()) as Record<string, unknown>) : {};
  }

  async function handleHttp(req: IncomingMessage, res: ServerResponse, arrived: number): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/bench/holds') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(Object.fromEntries(holds)));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/bench/now') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ now: epochNow() }));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/bench/cpu') {
      const cpu = process.cpuUsage();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ cpuUs: cpu.user + cpu.system }));
      return;
    }
    if (req.method === 'POST' && url.pathname === '/bench/reset') {
      holds.clear();
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/v1/chat/completions') return chat(await body(req), res, arrived);
    const tts = /^\/api\/v1\/text-to-speech\/[^/]+$/.exec(url.pathname);
    if (req.method === 'POST' && tts) return fakeRestTts(await body(req), res, arrived, d, record, toneBytes);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ errorCode: 40401, errorMessage: `no route ${req.method} ${url.pathname}` }));
  }

  const streamChat = streamedChat(d, record);

  async function chat(b: Record<string, unknown>, res: ServerResponse, started: number): Promise<void> {
    if (d.streamReply) return streamChat(b, res, started);
    const call = String(b.model ?? '');
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (content: string, extra: object = {}) =>
      `data: ${JSON.stringify({ id: 'bench', object: 'chat.completion.chunk', created: 0, model: call, choices: [{ index: 0, delta: { content }, finish_reason: null }], ...extra })}\n\n`;
    // Made before the hold, so that only the first chunk (which reports it) is made after it.
    const rest = FAKE_REPLY.slice(1).map((t) => chunk(t)).join('');
    const end = `data: ${JSON.stringify({ id: 'bench', object: 'chat.completion.chunk', created: 0, model: call, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
    await sleep(d.llmMs);
    // The whole reply at once after the first token: the chunker then never waits on the model.
    // The hold ends once the first token is written: serialising and writing it is the fake's own
    // work (`held_ms` in the chunk, taken before, is a lower bound). The callback, because a
    // response corks its socket until the next tick.
    res.write(chunk(FAKE_REPLY[0]!, { held_ms: epochNow() - started }) + rest, () => record(call, 'llm', d.llmMs, started));
    res.end(end);
  }

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/api/v1/listen') wss.handleUpgrade(req, socket, head, (ws) => fakeListen(ws, url.searchParams, d, record));
    else if (url.pathname === '/api/v1/websocket/text-to-speech') wss.handleUpgrade(req, socket, head, (ws) => fakeTtsSocket(ws, d, record, toneBytes));
    else socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    llmBaseUrl: `http://127.0.0.1:${port}/v1`,
    holds,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface FakeServiceProcess {
  /** The fake's process: part of the rig (bench/pin.ts puts it on the rig's CPUs). */
  pid: number;
  port: number;
  baseUrl: string;
  llmBaseUrl: string;
  /** Holds per call tag, fetched from the process. */
  holds(): Promise<Record<string, Hold[]>>;
  reset(): Promise<void>;
  /** The fake's own CPU so far (user + system), µs: work done for hiwar, not by it. */
  cpuUs(): Promise<number>;
  /**
   * The fake's epoch time minus this process's (`performance.timeOrigin + performance.now()`):
   * the two processes' time origins differ by up to a few ms. Taken on the fastest of several
   * round trips, so it is good to about half that round trip.
   */
  clockOffset: number;
  close(): Promise<void>;
}

/**
 * Starts the fake in a child process, so its work is not counted in the measured process; with
 * a bench's pin in force (bench/pin.ts), on the rig's CPUs.
 */
export async function spawnFakeService(delays: Partial<FakeDelays> = {}): Promise<FakeServiceProcess> {
  const args = Object.entries(delays).flatMap(([k, v]) => [`--${k}`, String(v)]);
  const child: ChildProcess = spawn(...rigCommand(process.execPath, [...SCRIPT_LOADER, fileURLToPath(import.meta.url), ...args]), {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, HIWAR_FAKE_EXIT_WITH_PARENT: '1' },
  });
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (l) => resolve((JSON.parse(l) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`fake service exited (${code}) before listening`)));
  });
  const origin = `http://127.0.0.1:${port}`;
  let best = { rtt: Infinity, offset: 0 };
  for (let i = 0; i < 20; i++) {
    const t0 = epochNow();
    const { now } = (await (await fetch(`${origin}/bench/now`)).json()) as { now: number };
    const t1 = epochNow();
    if (t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: now - (t0 + t1) / 2 };
  }
  return {
    pid: child.pid!,
    clockOffset: best.offset,
    port,
    baseUrl: `${origin}/api/v1`,
    llmBaseUrl: `${origin}/v1`,
    holds: async () => (await (await fetch(`${origin}/bench/holds`)).json()) as Record<string, Hold[]>,
    reset: async () => void (await fetch(`${origin}/bench/reset`, { method: 'POST' })),
    cpuUs: async () => ((await (await fetch(`${origin}/bench/cpu`)).json()) as { cpuUs: number }).cpuUs,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const delays: Partial<FakeDelays> = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]!.replace(/^--/, '') as keyof FakeDelays;
    if (!(key in FAKE_DELAYS)) throw new Error(`unknown option ${argv[i]} (known: ${Object.keys(FAKE_DELAYS).join(', ')})`);
    delays[key] = Number(argv[i + 1]);
  }
  const fake = await startFakeService(delays);
  process.stdout.write(JSON.stringify({ port: fake.port }) + '\n');
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  // The parent holds our stdin open: when it dies (a killed bench, a test's timeout), the pipe
  // closes and the fake goes too instead of lingering as an orphan on the machine.
  if (process.env.HIWAR_FAKE_EXIT_WITH_PARENT) {
    process.stdin.on('end', stop).on('close', stop).resume();
  }
}
