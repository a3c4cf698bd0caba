/**
 * `hiwar campaign worker` in its own process, as an instance of a cluster runs it: its own agent
 * server (telephony routes and outbound callbacks, reached through the test's balancer), the
 * outbound dialler on the platform the test fakes, BullMQ on the test's Redis, results to the
 * signed webhook. What the test gives instead of the defaults: the sandbox as the speech service,
 * the stall-free clock for the calls, the campaign clock (a start time and a speed shared by
 * every process) and short queue timings, so a killed worker's job comes back in seconds.
 */
import { campaignCommand } from '../../src/cli/campaign.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { createLogger } from '../../src/session/logger.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { sleepFor } from '../../src/transport/clock.ts';

const env = process.env;
const origin = Number(env.CLOCK_ORIGIN);
const start = Number(env.CLOCK_START);
const speed = Number(env.CLOCK_SPEED);
const campaignClock = { speed, now: () => start + (Date.now() - origin) * speed, sleep: (ms: number, signal?: AbortSignal) => sleepFor(ms / speed, signal) };
const client = new ServiceClient({ apiKey: env.SANDBOX_KEY!, baseUrl: env.SANDBOX_URL!, retryBaseMs: 5, maxRetries: 0 });
const name = env.WORKER_NAME!;
const code = await campaignCommand(
  ['worker', '--agent', env.AGENT_FILE!, '--platform', 'twilio', '--from', env.WORKER_FROM!, '--port', env.WORKER_PORT!, '--public-url', env.PUBLIC_URL!, '--redis', env.REDIS_URL!],
  {
    client,
    clock: new SteadyScaledClock(2),
    campaignClock,
    logger: createLogger('silent'),
    holder: name,
        // A slot's lease outlasts a dead worker's job's return (lock + stalled check), as the defaults do.
    queue: { lockDurationMs: 3000, stalledIntervalMs: 1000, leaseMs: 10_000, slotPollMs: 100 },
  },
);
process.exit(code);
