/**
 * `hiwar serve --config bench/density-serve.ts`: the density bench's agent against the fake
 * service, for `npm run bench -- telephony-density workers=N`, where the server is the real
 * `hiwar serve --workers N` in processes of its own. Each process counts the caller frames that
 * reach its sessions late (against the capture time the caller sent) and writes its counts to
 * HIWAR_BENCH_DIR/<pid>.json twice a second, for the bench to add up.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAiLlm } from '../src/llm/openai.ts';
import type { CreateAgentServerOptions } from '../src/server/create.ts';
import { ServiceClient } from '../src/service/client.ts';
import { createLogger } from '../src/session/logger.ts';
import { benchAgent, perfClock } from './harness.ts';
import { ArrivalCounter } from './telephony-density.ts';

const env = (k: string) => {
  const v = process.env[k];
  if (!v) throw new Error(`bench/density-serve.ts needs ${k} (set by the telephony-density bench)`);
  return v;
};

const arrivals = new ArrivalCounter();
const dir = env('HIWAR_BENCH_DIR');
const write = () => writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify({ pid: process.pid, frames: arrivals.frames, late: arrivals.late }));
write();
setInterval(write, 500).unref();

const config: CreateAgentServerOptions = {
  agent: benchAgent('density'),
  client: new ServiceClient({ apiKey: 'bench-key', baseUrl: env('HIWAR_BENCH_FAKE_URL') }),
  llm: new OpenAiLlm({ apiKey: 'bench', baseURL: env('HIWAR_BENCH_FAKE_LLM'), model: 'density' }),
  clock: perfClock,
  logger: createLogger('silent'),
  metrics: false,
  wrapSessions: (inner) => (transport) => inner(arrivals.watch(transport)),
};
export default config;
