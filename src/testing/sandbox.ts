import { startSandbox, type SandboxOptions } from '../sandbox/index.ts';
import { ServiceClient } from '../service/client.ts';

/** Options of `startTestSandbox`. */
export interface TestSandboxOptions {
  /** Phrases the recognizer knows from the start, besides those `runCall` teaches it. */
  phrases?: string[];
  /**
   * Anything else of the sandbox (keys, faults to inject, protocol timings). Its port is a free
   * one unless set here.
   */
  sandbox?: SandboxOptions;
}

/** A local stand-in of the voice service for tests, in this process. Share one between calls. */
export interface TestSandbox {
  /** A client of this sandbox (its key, its address). */
  readonly client: ServiceClient;
  /** Base URL (`http://127.0.0.1:PORT/api/v1`), for code that builds its own client. */
  readonly url: string;
  readonly apiKey: string;
  /** Phrases taught so far (besides the lines it voiced, which it always knows). */
  readonly phrases: ReadonlySet<string>;
  /**
   * Teaches the recognizer phrases a caller may say (whole, or one of their clauses). A phrase it
   * was taught before costs nothing.
   */
  learn(phrases: Iterable<string>): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the embedded sandbox for a test run: on a free local port, with the service's one-minute
 * limit on audio sent ahead of real time lifted (test calls run on a clock faster than real time).
 */
export async function startTestSandbox(options: TestSandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({
    port: 0,
    ...options.sandbox,
    timing: { aheadLimitS: 3600, ...options.sandbox?.timing },
  });
  const key = sandbox.keys[0]!.key;
  // Region and addresses set here: HIWAR_REGION or HIWAR_BASE_URL in the shell must not send a
  // test's requests anywhere else.
  const client = new ServiceClient({ apiKey: key, region: 'global', baseUrl: sandbox.url, uaeBaseUrl: sandbox.uaeUrl });
  const taught = new Set<string>();
  const learn = async (phrases: Iterable<string>) => {
    for (const p of phrases) {
      const phrase = p.trim();
      if (!phrase || taught.has(phrase)) continue;
      await sandbox.state.learnPhrase(phrase);
      taught.add(phrase);
    }
  };
  try {
    await learn(options.phrases ?? []);
  } catch (err) {
    await sandbox.close();
    throw err;
  }
  return { client, url: sandbox.url, apiKey: key, phrases: taught, learn, close: () => sandbox.close() };
}
