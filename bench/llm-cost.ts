/**
 * The model request alone: CPU per streamed Chat Completions request, and request → first chunk
 * minus the fake's hold, through hiwar's adapter (`OpenAiLlm`, node:http), through the `openai`
 * SDK's own client (Node's fetch), and through the adapter given that client (`client` option),
 * alternated against the fake service.
 */
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import { OpenAiLlm } from '../src/llm/openai.ts';
import { spawnFakeService } from './fake-service.ts';
import { benchOptions, pcts, table, type BenchArgs } from './harness.ts';
import { conditions, spanLine } from './conditions.ts';
import { pinBench } from './pin.ts';

/**
 * Usage: npm run bench -- llm [--quick] [requests=300] [pin=auto|off|1/0]
 * (`pin=`, bench/pin.ts: the requests in this process on the server's core(s), the fake model on
 * the rest; `auto` by default, which on two CPUs shares them.)
 */
export async function llmCost({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { numbers, named } = benchOptions(rest);
  const n = Number(named.requests ?? numbers[0] ?? (quick ? 60 : 300));
  if (!(Number.isInteger(n) && n > 0)) throw new Error('usage: npm run bench -- llm [--quick] [requests=300] [pin=auto|off|1/0]');
  pinBench(named.pin, { self: 'server' });
  const messages = [{ role: 'system' as const, content: 'أنت موظف خدمة عملاء.' }, { role: 'user' as const, content: 'أريد معرفة رصيد حسابي' }];
  const out: Record<string, { cpuUsPerRequest: number[]; firstChunk: ReturnType<typeof pcts> }> = {};
  // The fake model runs in a process of its own per round: the conditions are this process's.
  const conds = conditions();
  for (const llmMs of [0, 50]) {
    const fake = await spawnFakeService({ llmMs });
    try {
      const sdk = new OpenAI({ apiKey: 'bench', baseURL: fake.llmBaseUrl, maxRetries: 1, timeout: 30_000 });
      const adapter = new OpenAiLlm({ apiKey: 'bench', baseURL: fake.llmBaseUrl, model: 'llmcost' });
      const withClient = new OpenAiLlm({ client: sdk, model: 'llmcost' });
      const ways: Record<string, () => Promise<number>> = {
        'openai SDK (fetch)': async () => {
          let first = 0;
          for await (const _ of await sdk.chat.completions.create({ model: 'llmcost', messages, stream: true })) first ||= performance.now();
          return first;
        },
        'hiwar OpenAiLlm': async () => {
          let first = 0;
          for await (const _ of adapter.stream({ messages, tools: [], signal: new AbortController().signal })) first ||= performance.now();
          return first;
        },
        'hiwar OpenAiLlm, own client': async () => {
          let first = 0;
          for await (const _ of withClient.stream({ messages, tools: [], signal: new AbortController().signal })) first ||= performance.now();
          return first;
        },
      };
      if (llmMs === 0) {
        // CPU: back-to-back requests, three rounds each way, alternated.
        for (let round = 0; round < 3; round++) {
          for (const [k, f] of Object.entries(ways)) {
            for (let i = 0; i < 20; i++) await f();
            const c0 = process.cpuUsage();
            for (let i = 0; i < n; i++) await f();
            const c = process.cpuUsage(c0);
            (out[k] ??= { cpuUsPerRequest: [], firstChunk: pcts([]) }).cpuUsPerRequest.push(Math.round((c.user + c.system) / n));
          }
        }
      } else {
        // Latency: one request at a time after an idle gap, as a turn makes them.
        const lat: Record<string, number[]> = {};
        for (let i = 0; i < Math.min(n, 100); i++) {
          for (const [k, f] of Object.entries(ways)) {
            await fake.reset();
            const t0 = performance.now();
            const first = await f();
            const held = (await fake.holds()).llmcost?.find((h) => h.kind === 'llm')?.heldMs ?? NaN;
            if (i >= 3) (lat[k] ??= []).push(first - t0 - held);
          }
        }
        for (const [k, xs] of Object.entries(lat)) out[k]!.firstChunk = pcts(xs);
      }
    } finally {
      await fake.close();
    }
  }
  const ran = conds.end();
  table(`llm: one streamed chat completion against the fake (${n} requests per round, warmed by 20 each way); ${spanLine(ran)}`, Object.entries(out).flatMap(([k, v]) => [
    [`${k}: CPU µs per request (3 rounds)`, v.cpuUsPerRequest.join(', '), ''],
    [`${k}: request → first chunk − hold, p50 / p95 / p99 ms`, `${v.firstChunk.p50} / ${v.firstChunk.p95} / ${v.firstChunk.p99}`, ''],
  ] as [string, string, string][]));
  return { bench: 'llm', requests: n, ...out, conditions: ran };
}
