/**
 * Shared by the examples: argument checks, a client for the real service when HIWAR_API_KEY is
 * set (otherwise the in-process sandbox, see `hiwar sandbox`), and one-line errors.
 */
import { basename } from 'node:path';
import { explainError } from '../src/cli/explain.ts';
import type { ServiceClient } from '../src/service/index.ts';

export const EXAMPLE_SENTENCE = 'مرحبا بكم في خدمة العملاء، كيف أستطيع مساعدتك اليوم؟';

export interface Connection {
  client: ServiceClient;
  /** True when the in-process sandbox answers (its recognizer knows a closed set of phrases). */
  sandbox: boolean;
  close: () => Promise<void>;
}

export async function connect(): Promise<Connection> {
  // Loaded here, after the argument checks: a wrong command line answers without loading them.
  const { ServiceClient } = await import('../src/service/index.ts');
  if (process.env.HIWAR_API_KEY) return { client: new ServiceClient(), sandbox: false, close: async () => {} };
  const { startSandbox } = await import('../src/sandbox/index.ts');
  // The sandbox recognizes only what it voiced or was told: teach it the examples' sentence, so
  // the samples in examples/audio/ and a WAV made by tts-to-wav.ts in another run are recognized.
  const sandbox = await startSandbox({ port: 0, phrasebook: [EXAMPLE_SENTENCE] });
  console.error(`(no HIWAR_API_KEY: using the local sandbox at ${sandbox.url}; it recognizes only "${EXAMPLE_SENTENCE}" and what it voices)`);
  return { client: new ServiceClient({ apiKey: sandbox.keys[0]!.key, baseUrl: sandbox.url }), sandbox: true, close: sandbox.close };
}

const name = basename(process.argv[1] ?? 'example');

/** The one positional argument, or the usage and exit 2. */
export function argument(usage: string): string {
  const arg = process.argv[2];
  if (!arg || arg === '-h' || arg === '--help' || process.argv.length > 3) {
    console.error(`usage: npx tsx examples/${name} ${usage}`);
    process.exit(arg === '-h' || arg === '--help' ? 0 : 2);
  }
  return arg;
}

/**
 * The audio file argument, checked before anything is started: its first frame is decoded
 * (any format; see `openAudioStream`), then the decoder is stopped. Nothing reads the whole file.
 */
export async function audioArgument(usage: string, rate: number): Promise<{ path: string }> {
  const path = argument(usage);
  const { openAudioStream } = await import('../src/audio/decode.ts');
  const probe = await openAudioStream(path, { rate }).catch(fail);
  await probe.close();
  return { path };
}

/** Prints one line (no stack trace) and exits 1. */
export function fail(err: unknown): never {
  console.error(`${name}: ${explainError(err)}`);
  process.exit(1);
}

/** Runs an example's body against the service and closes it, whatever happens. */
export async function withService(body: (c: Connection) => Promise<void>): Promise<void> {
  const c = await connect().catch(fail);
  try {
    await body(c);
  } catch (err) {
    await c.close();
    fail(err);
  }
  await c.close();
}
