/**
 * Shared by the examples: a client for the real service when HIWAR_API_KEY is set, otherwise
 * the in-process sandbox (see `hiwar sandbox`).
 */
import { ServiceClient } from '../src/service/index.ts';

export const EXAMPLE_SENTENCE = 'مرحبا بكم في خدمة العملاء، كيف أستطيع مساعدتك اليوم؟';

export async function connect(): Promise<{ client: ServiceClient; close: () => Promise<void> }> {
  if (process.env.HIWAR_API_KEY) return { client: new ServiceClient(), close: async () => {} };
  const { startSandbox } = await import('../src/sandbox/index.ts');
  // The sandbox recognizes only what it voiced or was told: teach it the examples' sentence, so
  // a WAV made by tts-to-wav.ts in another run is recognized.
  const sandbox = await startSandbox({ port: 0, phrasebook: [EXAMPLE_SENTENCE] });
  console.error(`(no HIWAR_API_KEY: using the local sandbox at ${sandbox.url})`);
  return { client: new ServiceClient({ apiKey: sandbox.keys[0]!.key, baseUrl: sandbox.url }), close: sandbox.close };
}
