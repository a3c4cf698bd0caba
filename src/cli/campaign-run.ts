import type { CampaignSpec } from '../campaign/in-process.ts';
import type { CampaignQueueOptions } from '../campaign/queue.ts';
import type { ResultSink } from '../campaign/results.ts';
import type { CampaignStore } from '../campaign/store.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Logger } from '../session/logger.ts';
import type { Clock } from '../transport/clock.ts';
import { loadAgent } from './agent.ts';
import { numberOption, publicUrlOption, UsageError } from './args.ts';
import { CAMPAIGN_USAGE, describe } from './campaign.ts';
import { startingServerLine } from './call.ts';
import { serveLedger } from './serve-security.ts';
import { cliLogger } from './log.ts';
import { onStop, untilStopped } from './stop.ts';

interface RunValues {
  agent?: string;
  results?: string;
  from?: string;
  platform?: string;
  'public-url'?: string;
  port?: string;
  host?: string;
  phrasebook?: string;
}

/** What a test (or an embedding program) may give the campaign's server instead of the defaults. */
export interface CampaignRunDeps {
  /** The speech service (default: the real one with HIWAR_API_KEY, else the embedded sandbox). */
  client?: ServiceClient;
  /** The calls' clock (sessions and media). @default real time */
  clock?: Clock;
  /** The campaign's clock (windows and retries). @default real time */
  campaignClock?: Clock;
  logger?: Logger;
  /** The worker's queue timings (how soon a dead worker's job and slot come back). @default CAMPAIGN_QUEUE_DEFAULTS */
  queue?: CampaignQueueOptions;
  /** The worker's name in the campaign's slots. @default `worker-<pid>` */
  holder?: string;
}

/**
 * A server for the campaign's calls: the telephony routes their audio comes back to, outbound
 * calling (records in Redis with `redisUrl`), the campaigns API, and a dialler whose results
 * carry who answered and what was said, from each call's session.
 */
async function callServer(values: RunValues, say: (m: string) => void, deps: CampaignRunDeps, o: { redisUrl?: string; campaigns?: CampaignStore } = {}) {
  const publicUrl = publicUrlOption(values['public-url'], CAMPAIGN_USAGE);
  if (!publicUrl) throw new UsageError('the platform must reach this process: give --public-url (or HIWAR_PUBLIC_URL)', CAMPAIGN_USAGE);
  const platform = values.platform;
  if (platform !== undefined && !['twilio', 'telnyx', 'plivo', 'vonage'].includes(platform)) throw new UsageError(`--platform must be twilio, telnyx, plivo or vonage, got "${platform}"`, CAMPAIGN_USAGE);
  const port = values.port === undefined ? 8080 : numberOption('port', values.port, 0, 65535, CAMPAIGN_USAGE, true);
  const { serveOutbound, checkDialling } = await import('./serve-outbound.ts');
  // Otherwise each contact is dialled in turn and ends as "invalid", for good.
  await checkDialling(values.from, platform);
  say(startingServerLine('hiwar campaign', "the campaign's calls", !deps.client && !process.env.HIWAR_API_KEY));
  const { agent } = await loadAgent(values.agent);
  // The model every call answers with (OPENAI_API_KEY, as `hiwar demo`'s); a malformed OPENAI_BASE_URL stops here.
  const model = (await import('./llm.ts')).serverLlm({ agent });
  if (model.line) say(`(language model: ${model.line})`);
  // Taught as `hiwar serve`'s is: the agent's intent examples and --phrasebook.
  const sandbox = deps.client ? undefined : await (await import('./connect.ts')).taughtSandbox(agent, values.phrasebook, (m) => say(`(${m})`));
  const [{ createAgentServer }, { telephonyRoutes, outboundDialer, jambonzOptionsFromEnv }] = await Promise.all([import('../server/create.ts'), import('../../transports/telephony/index.ts')]);
  const logger = deps.logger ?? cliLogger('info');
  const calls = await serveOutbound({ publicUrl, redisUrl: o.redisUrl, logger, campaigns: o.campaigns, ...(deps.queue?.leaseMs ? { slotLeaseMs: deps.queue.leaseMs } : {}) });
  // Spent media tokens in Redis on a cluster, as `hiwar serve`'s: a token is spent for every
  // worker, and a worker asking whether an answered call's media came (the no-media check) sees
  // the media another worker took.
  const ledger = await serveLedger(o.redisUrl, logger);
  const app = await createAgentServer({
    ledger,
    agent,
    publicUrl,
    llm: model.llm,
    host: values.host,
    port,
    logger,
    ...(deps.client ? { client: deps.client } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
    // Every instance of a cluster must take the media tokens any of them minted.
    tokens: { secret: process.env.HIWAR_MEDIA_SECRET },
    plugins: [telephonyRoutes({ jambonz: jambonzOptionsFromEnv(), ...(deps.clock ? { media: { clock: deps.clock } } : {}) }), calls.routes],
    onTransportEnded: (t, report) => calls.callEnded(t.call, report),
    // A campaign call's session here keeps its slot while it runs.
    wrapSessions: (inner) => async (t) => {
      const s = await inner(t);
      calls.callStarted(t.call);
      return s;
    },
  });
  const { url } = await app.listen();
  say(`agent "${agent.name}" at ${url}, reached as ${publicUrl}; calls' records and campaigns in ${calls.where}${app.sandboxUrl ? `; the embedded sandbox at ${app.sandboxUrl}` : ''}`);
  const dialer = outboundDialer(calls.outbound, { ...(values.from ? { from: values.from } : {}), ...(platform ? { platform: platform as 'twilio' } : {}) });
  return {
    dialer,
    logger,
    close: async () => {
      await app.close();
      await ledger.close?.();
    },
  };
}

/** The signed webhook of results, when HIWAR_ANALYTICS_WEBHOOK_URL is set. */
async function webhook(): Promise<ResultSink[]> {
  const url = process.env.HIWAR_ANALYTICS_WEBHOOK_URL;
  if (!url) return [];
  const { webhookSink } = await import('../campaign/results.ts');
  return [webhookSink({ url, secret: process.env.HIWAR_ANALYTICS_SECRET })];
}

/** `hiwar campaign start` without Redis: the whole campaign in this process. */
export async function inProcess(spec: CampaignSpec, values: RunValues, say: (m: string) => void, deps: CampaignRunDeps = {}): Promise<number> {
  const [{ InProcessCampaigns }, { csvSink }, { realClock }, { MemoryCampaignStore }] = await Promise.all([import('../campaign/in-process.ts'), import('../campaign/results.ts'), import('../transport/clock.ts'), import('../campaign/store.ts')]);
  // This process's server answers GET /campaigns/:id for the campaign it runs.
  const store = new MemoryCampaignStore();
  const server = await callServer(values, say, deps, { campaigns: store });
  let resultsFile = values.results;
  const sinks = await webhook();
  // One CSV writer, made once the id (and so the default file name) is known.
  let csv: ResultSink | undefined;
  const runner = new InProcessCampaigns({ dialer: server.dialer, clock: deps.campaignClock ?? realClock(), logger: server.logger, store, sinks: [{ write: (r) => (csv ??= csvSink(resultsFile!)).write(r) }, ...sinks] });
  // SIGINT, SIGTERM, or the npm process that started it going away (stop.ts).
  const unwatch = onStop('campaign', (why) => {
    say(`${why}: stopping; the calls under way finish, nothing more is dialled`);
    runner.close();
  });
  try {
    const status = await runner.run(spec, (id) => {
      resultsFile ??= `campaign-${id}.csv`;
      say(`campaign ${id}: running in this process; results to ${resultsFile}`);
    });
    say(describe(status));
    return 0;
  } finally {
    unwatch();
    await server.close();
  }
}

/** `hiwar campaign worker`: places queued campaigns' calls on this instance until SIGTERM/SIGINT. */
export async function worker(values: RunValues, redisUrl: string, say: (m: string) => void, deps: CampaignRunDeps = {}): Promise<number> {
  const { probeRedis } = await import('../cluster/redis.ts');
  await probeRedis(redisUrl);
  const server = await callServer(values, say, deps, { redisUrl });
  const [{ CampaignWorker, budgetGate }, budget] = await Promise.all([import('../campaign/queue.ts'), keyBudget(redisUrl)]);
  const w = new CampaignWorker(
    redisUrl,
    { dialer: server.dialer, sinks: await webhook(), logger: server.logger, gates: budget ? [budgetGate(budget.semaphore, budget.sessionsPerCall)] : [], ...(deps.campaignClock ? { clock: deps.campaignClock } : {}), ...(deps.holder ? { holder: deps.holder } : {}) },
    deps.queue,
  );
  await w.ready();
  say(`hiwar campaign worker: taking campaign calls from Redis${budget ? `, within the key's ${budget.semaphore.limit} sessions` : ''}`);
  // SIGTERM, SIGINT, or the npm process that started it going away (stop.ts).
  say(`${await untilStopped('campaign worker')}: finishing the calls under way`);
  await w.close();
  await server.close();
  budget?.redis.disconnect();
  say('stopped; bye');
  return 0;
}

/**
 * The service key's cluster budget, as \`hiwar serve\` counts it (HIWAR_KEY_SESSIONS, the key's hash
 * in the slots' name): the worker dials only while one more call fits. None without a key.
 */
async function keyBudget(redisUrl: string) {
  const apiKey = process.env.HIWAR_API_KEY;
  const sessions = Number(process.env.HIWAR_KEY_SESSIONS);
  if (!apiKey || !Number.isInteger(sessions) || sessions < 1) return undefined;
  const [{ connectRedis }, { RedisSemaphore, slotsKey }, { keyHash }, { CLUSTER_DEFAULTS }] = await Promise.all([
    import('../cluster/redis.ts'),
    import('../cluster/semaphore.ts'),
    import('../cluster/cluster.ts'),
    import('../cluster/options.ts'),
  ]);
  const redis = connectRedis(redisUrl);
  redis.on('error', () => {});
  const semaphore = new RedisSemaphore({ redis, key: slotsKey(CLUSTER_DEFAULTS.prefix, keyHash(apiKey)), limit: sessions, leaseMs: CLUSTER_DEFAULTS.leaseMs, holder: 'campaign-worker' });
  return { redis, semaphore, sessionsPerCall: CLUSTER_DEFAULTS.sessionsPerCall };
}
