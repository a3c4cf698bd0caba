/**
 * One campaign worker in its own process, as an instance of a cluster runs it: BullMQ on the
 * test's Redis, the phone network's dialler, results to the signed webhook, and the campaign
 * clock the test gives (a start time and a speed, shared by every process). Prints "ready".
 */
import { CampaignWorker } from '../../src/campaign/queue.ts';
import { webhookSink } from '../../src/campaign/results.ts';
import { networkDialer } from './phone-network.ts';

const env = process.env;
const origin = Number(env.CLOCK_ORIGIN);
const start = Number(env.CLOCK_START);
const speed = Number(env.CLOCK_SPEED);
const clock = { now: () => start + (Date.now() - origin) * speed, speed };
const name = env.WORKER_NAME!;
const worker = new CampaignWorker(
  env.REDIS_URL!,
  { dialer: networkDialer(env.NETWORK_URL!, name, clock.now), clock, sinks: [webhookSink({ url: env.WEBHOOK_URL!, secret: env.WEBHOOK_SECRET })], holder: name },
  { lockDurationMs: 2000, stalledIntervalMs: 1000, leaseMs: 2000, slotPollMs: 50 },
);
await worker.ready();
process.stdout.write(`ready ${name}\n`);
process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)));
