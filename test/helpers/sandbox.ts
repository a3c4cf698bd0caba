import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.ts';
import { ServiceClient, collectPcm } from '../../src/service/index.ts';

export interface Running {
  sandbox: Sandbox;
  client: ServiceClient;
  key: string;
  close(): Promise<void>;
}

export async function runSandbox(opts: SandboxOptions = {}): Promise<Running> {
  // The tests run calls on scaled clocks (2-4x), so their audio runs ahead of real time by design:
  // the service's 60 s ahead limit would end any call that lasts a minute of wall time on a loaded
  // machine (close 4008). test/sandbox/listen.test.ts sets its own short limit to test it.
  const sandbox = await startSandbox({ port: 0, ...opts, timing: { aheadLimitS: 3600, ...opts.timing } });
  const key = sandbox.keys[0]!.key;
  return {
    sandbox,
    key,
    client: new ServiceClient({ apiKey: key, baseUrl: sandbox.url, retryBaseMs: 5, maxRetries: 0 }),
    close: () => sandbox.close(),
  };
}

/** A line voiced by the sandbox over HTTP streaming, as PCM16 at `rate`. */
export async function voiced(client: ServiceClient, text: string, rate = 16000, voice_id = 'ar-najdi-male-2'): Promise<Int16Array> {
  const stream = await client.synthesizeStream(client.config.models.tts, { voice_id, text, sample_rate: rate });
  return collectPcm(stream);
}

/** Raw request with the key header, for checking the sandbox's own validation. */
export async function raw(url: string, key: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'x-api-key': key, ...(init.headers as Record<string, string>) };
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url, { ...init, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed };
}

export const pad = (pcm: Int16Array, rate: number, before = 0.3, after = 1.2): Int16Array => {
  const out = new Int16Array(pcm.length + Math.round((before + after) * rate));
  out.set(pcm, Math.round(before * rate));
  return out;
};
