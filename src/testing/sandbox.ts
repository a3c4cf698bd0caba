import { baselineWasm } from '../audio/onnx.ts';
import { startSandbox, type SandboxOptions } from '../sandbox/index.ts';
import { RENDER_CACHE_DEFAULTS } from '../sandbox/engines/render-cache.ts';
import { ServiceClient } from '../service/client.ts';
import { voicingLine } from '../sandbox/voicing-line.ts';
import { progressOf, untaught, type TestProgress } from './progress.ts';

/** Options of `startTestSandbox`. */
export interface TestSandboxOptions {
  /** Phrases the recognizer knows from the start, besides those `runCall` teaches it. */
  phrases?: string[];
  /**
   * Anything else of the sandbox (keys, faults to inject, protocol timings). Its port is a free
   * one unless set here.
   */
  sandbox?: SandboxOptions;
  /**
   * Where it says what it is doing while it starts and voices phrases (a line each; they take a
   * minute on a busy machine the first time). `false`: nothing.
   * @default a line on stderr
   */
  progress?: TestProgress;
}

/**
 * How the sandbox refuses its key, as the live service refuses one: `'empty-wallet'`, the key's
 * wallet is empty (HTTP 402, 40201 on the sockets); `'no-access'`, the key may call none of the
 * endpoints (HTTP 403, 40301).
 */
export type KeyRefusal = 'empty-wallet' | 'no-access';

/** A local stand-in of the voice service for tests, in this process. Share one between calls. */
export interface TestSandbox {
  /** A client of this sandbox (its key, its address). */
  readonly client: ServiceClient;
  /** Base URL (`http://127.0.0.1:PORT/api/v1`), for code that builds its own client. */
  readonly url: string;
  readonly apiKey: string;
  /**
   * Teaches the recognizer phrases a caller may say (whole, or one of their clauses), as spoken by
   * the voices `voices` names (default: every voice of the catalogue). A phrase taught before for
   * a voice costs nothing.
   */
  learn(phrases: Iterable<string>, voices?: readonly string[]): Promise<void>;
  /** Whether a phrase was taught (for `voice`, or for every voice). */
  knows(phrase: string, voice?: string): boolean;
  /**
   * From now on the sandbox refuses its key (`'empty-wallet'` by default, or `'no-access'`), so a
   * test hears what a caller hears when the service stops serving the key: the agent's
   * out-of-service line, then the end of the call (`ended` starts `out of service:`). Every client
   * of this sandbox is refused meanwhile; the function returned gives the key back. `runCall`'s
   * `outOfService` does this for one call, after rendering the line as a server does at start-up.
   */
  refuseKey(why?: KeyRefusal): () => void;
  /** Stops the sandbox. */
  close(): Promise<void>;
}

/**
 * Starts the embedded sandbox for a test run: on a free local port, with the service's one-minute
 * limit on audio sent ahead of real time lifted (test calls run on a clock faster than real time).
 */
export async function startTestSandbox(options: TestSandboxOptions = {}): Promise<TestSandbox> {
  const say = progressOf(options.progress);
  // A test process is short-lived: no background optimizing of the VAD's WebAssembly to wait for at exit.
  baselineWasm();
  say('starting the embedded sandbox…');
  const sandbox = await startSandbox({
    port: 0,
    warmUp: true, // test calls follow: their first must not load the VAD model mid-call
    ...options.sandbox,
    timing: { aheadLimitS: 3600, ...options.sandbox?.timing },
  });
  const key = sandbox.keys[0]!.key;
  // Region and addresses set here: HIWAR_REGION or HIWAR_BASE_URL in the shell must not send a
  // test's requests anywhere else.
  const client = new ServiceClient({ apiKey: key, region: 'global', baseUrl: sandbox.url, uaeBaseUrl: sandbox.uaeUrl });
  const allVoices = [...sandbox.state.voices.values()].filter((v) => v.record.type === 'premade').map((v) => v.record.voice_id);
  /** Phrases taught, by voice. */
  const taught = new Map<string, Set<string>>(allVoices.map((v) => [v, new Set()]));
  const knows = (phrase: string, voice?: string) => (voice ? [voice] : allVoices).every((v) => taught.get(v)?.has(phrase.trim()) ?? false);
  const learn = async (phrases: Iterable<string>, voices: readonly string[] = allVoices) => {
    const unknown = voices.filter((v) => !taught.has(v));
    if (unknown.length) throw new Error(`learn: no voice ${unknown.join(', ')} in the sandbox (it has ${allVoices.join(', ')})`);
    for (const p of phrases) {
      const phrase = p.trim();
      const missing = voices.filter((v) => !taught.get(v)!.has(phrase));
      if (!phrase || !missing.length) continue;
      await sandbox.state.learnPhrase(phrase, missing);
      for (const v of missing) taught.get(v)!.add(phrase);
    }
  };
  try {
    const phrases = options.phrases ?? [];
    const count = untaught(phrases, allVoices, knows);
    if (count) say(voicingLine(count, allVoices, RENDER_CACHE_DEFAULTS.dir));
    await learn(phrases);
  } catch (err) {
    await sandbox.close();
    throw err;
  }
  const refuseKey = (why: KeyRefusal = 'empty-wallet') => {
    if (why !== 'empty-wallet' && why !== 'no-access') throw new TypeError(`refuseKey: "empty-wallet" or "no-access", not ${JSON.stringify(why)}`);
    const state = sandbox.state.keys.lookup(key, 'global')!;
    if (why === 'empty-wallet') {
      const credits = state.credits;
      state.credits = 0;
      return () => void (state.credits = credits);
    }
    const allow = state.spec.allow;
    state.spec.allow = [];
    return () => void (state.spec.allow = allow);
  };
  return { client, url: sandbox.url, apiKey: key, learn, knows, refuseKey, close: () => sandbox.close() };
}
