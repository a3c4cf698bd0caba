import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHandler, type Route } from './http/server.ts';
import { generateKey, KeyStore, type KeySpec, type Region } from './keys.ts';
import { denoiseRoutes } from './routes/denoise.ts';
import { sttRoutes, textRoutes } from './routes/stt.ts';
import { ttsRoutes } from './routes/tts.ts';
import { voiceRoutes, voiceSample } from './routes/voices.ts';
import { SandboxState } from './state.ts';
import { attachSockets } from './ws/router.ts';
import type { WebSocketServer } from 'ws';

export type { KeySpec } from './keys.ts';
export { parseKeysFile } from './keys.ts';

/** Options of `startSandbox`: address, keys, phrasebook and optional engines. */
export interface SandboxOptions {
  /**
   * Port of the global region. Default 0: a free one (read it from `url`), so an embedded sandbox
   * never collides with another program; `hiwar sandbox` listens on 8787 by default.
   */
  port?: number;
  /** Address to listen on (default 127.0.0.1: this machine only). */
  host?: string;
  /** Keys accepted; default: one global key with plenty of credits. */
  keys?: KeySpec[];
  /** Serve the UAE region on its own port as well as under /uae/api/v1. */
  uaePort?: number;
  /** Phrases the recognizer knows from the start (besides everything the sandbox voices). */
  phrasebook?: string[];
  /**
   * The voices the phrasebook is learnt in (default: every catalogue voice, for callers who are
   * people). A simulated caller speaks with one voice: teaching only that one is a fifth of the
   * start-up work.
   */
  phrasebookVoices?: string[];
  /** Optional engines the sandbox lacks: answer 501 without them. */
  diacritize?: (text: string) => Promise<string>;
  /** A translation engine for `/translate` (answers 501 without one). */
  translate?: (text: string, to: string) => AsyncIterable<string>;
  /** Where the sandbox's own log lines go. */
  log?: (message: string) => void;
  /** Shorter protocol timings (idle close, forced split, ahead limit), for tests. */
  timing?: Partial<SandboxState['timing']>;
  /** Failures to inject (see SandboxState.faults). */
  faults?: Partial<SandboxState['faults']>;
  /** Live-service behaviours to imitate (see SandboxState.quirks). */
  quirks?: Partial<SandboxState['quirks']>;
  /** Resource limits and timeouts (see SandboxState.limits). */
  limits?: Partial<SandboxState['limits']>;
  /**
   * Load the voice activity model (and the resampler) before `startSandbox` resolves, beside the
   * start's other work, so that the first `/listen` socket does not load it mid-call (about a
   * second of CPU on the event loop, which held up the first call's audio). For a sandbox that
   * takes calls; off by default, since a sandbox used only for synthesis never needs the model.
   * @default false
   */
  warmUp?: boolean;
}

/** A running sandbox: its URLs, its keys and its state. */
export interface Sandbox {
  /** http://host:port/api/v1 (global region). */
  url: string;
  wsUrl: string;
  /** UAE region base URL. */
  uaeUrl: string;
  keys: KeySpec[];
  state: SandboxState;
  /** Stops the sandbox and closes its connections. */
  close(): Promise<void>;
}

const routes: Route[] = [...voiceRoutes, ...ttsRoutes, ...sttRoutes, ...textRoutes, ...denoiseRoutes];

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // exclusive: in a node:cluster worker (`hiwar serve --workers N`) a shared port-0 listener
    // would put every worker's sandbox, each with its own keys, behind one port in turn.
    server.listen({ port, host, exclusive: true }, () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * Starts a local stand-in of the service: HTTP, SSE and WebSockets on one port.
 *
 * @example
 * const sandbox = await startSandbox({ port: 0 });
 * const client = new ServiceClient({ apiKey: sandbox.keys[0].key, baseUrl: sandbox.url });
 * await sandbox.close();
 */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const host = opts.host ?? '127.0.0.1';
  const keys = opts.keys?.length ? opts.keys : [{ key: generateKey(), region: 'global' as const, credits: 10_000_000, concurrency: 16 }];
  const servers: Server[] = [];
  const socketServers: WebSocketServer[] = [];
  const state = new SandboxState(new KeyStore(keys), '', { diacritize: opts.diacritize, translate: opts.translate });
  Object.assign(state.timing, opts.timing ?? {});
  Object.assign(state.faults, opts.faults ?? {});
  Object.assign(state.quirks, opts.quirks ?? {});
  Object.assign(state.limits, opts.limits ?? {});
  const prepareFile = async (name: string) => {
    const m = /^voices\/(.+)\.wav$/.exec(name);
    if (m && state.voices.has(m[1]!)) await voiceSample(state, m[1]!);
  };
  const make = (fixedRegion?: Region) => {
    const server = createServer(createHandler(state, routes, { fixedRegion, log: opts.log, prepareFile }));
    // A request slower than this holds a concurrency slot: uploads of up to 200 MB on slow links
    // still fit in the default, and a stalled body is cut sooner by the body idle timeout.
    server.requestTimeout = state.limits.requestTimeoutMs;
    server.headersTimeout = state.limits.headersTimeoutMs;
    // Idle connections outlive the clients' own keep-alive, so a client never sends a request
    // on a socket the server is closing.
    server.keepAliveTimeout = 65_000;
    socketServers.push(attachSockets(server, state, fixedRegion));
    servers.push(server);
    return server;
  };
  const close = async () => {
    for (const wss of socketServers) for (const c of wss.clients) c.terminate();
    for (const s of servers) {
      s.closeAllConnections();
      // A server that never listened (its port was taken) has nothing to close.
      if (s.listening) await new Promise<void>((r) => s.close(() => r()));
    }
  };
  // Beside listening and learning the phrasebook (espeak runs in processes of its own); never rejects.
  const warming = opts.warmUp ? import('./warm-up.ts').then((m) => m.warmUpListen()).catch(() => {}) : undefined;
  let port: number;
  try {
    port = await listen(make(), opts.port ?? 0, host);
    if (opts.uaePort !== undefined) await listen(make('uae'), opts.uaePort, host);
    state.fileBase = `http://${host}:${port}/files`;
    for (const v of state.voices.values()) v.record.sample_url = `${state.fileBase}/voices/${v.record.voice_id}.wav`;
    for (const phrase of opts.phrasebook ?? []) await state.learnPhrase(phrase, opts.phrasebookVoices);
    await warming;
  } catch (err) {
    // A port in use or a phrase it cannot learn: the ports it did open must not keep the process up.
    await warming;
    await close();
    throw err;
  }
  const url = `http://${host}:${port}/api/v1`;
  return {
    url,
    wsUrl: url.replace(/^http/, 'ws'),
    uaeUrl: opts.uaePort !== undefined ? `http://${host}:${(servers[1]!.address() as AddressInfo).port}/api/v1` : `http://${host}:${port}/uae/api/v1`,
    keys,
    state,
    close,
  };
}
