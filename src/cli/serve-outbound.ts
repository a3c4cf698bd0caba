/**
 * Outbound calls and campaigns on a CLI server (`hiwar serve`, `hiwar campaign start|worker`):
 * `POST /calls` and the platforms' callbacks, and the campaigns API, as one plugin. With Redis
 * the calls' records and the campaigns are the cluster's, so any instance takes any call's
 * callbacks and answers for any campaign; without, they are this process's.
 */
import type { Redis } from 'ioredis';
import type { SlotKeeper } from '../campaign/slots.ts';
import type { CampaignStore } from '../campaign/store.ts';
import type { PluginFactory, ServerPlugin } from '../server/types.ts';
import type { CallReport } from '../session/events.ts';
import type { Logger } from '../session/logger.ts';
import type { CallInfo } from '../transport/types.ts';
import type { CallRecords } from '../../transports/telephony/outbound/records.ts';
import type { Outbound, OutboundOptions } from '../../transports/telephony/outbound/routes.ts';
import { E164 } from '../../transports/telephony/outbound/types.ts';
import { CliError } from './args.ts';

/** Outbound calling on a CLI server: the plugin to mount, and what the server tells it. */
export interface ServeOutbound {
  outbound: Outbound;
  /** Mounts the calls API, the platforms' callbacks and the campaigns API. */
  routes: PluginFactory;
  /** For the server's `onTransportEnded`: an outbound call's session summary (who answered, what was said) into its record. */
  callEnded(call: CallInfo, report: CallReport | undefined): void;
  /** For the server's `wrapSessions`: an outbound call's session started here (a campaign call's slot is kept while it runs). */
  callStarted(call: CallInfo): void;
  /** Where records and campaigns are kept, for the start-up lines. */
  where: string;
  /** Closes the outbound calls, the queue and Redis (the plugin's close does too; once is enough). */
  close(): Promise<void>;
}

/**
 * Outbound calls and the campaigns API. `campaigns`: the store of an in-process campaign (its
 * `hiwar campaign start` process answers for it); default Redis's with `redisUrl`, else none.
 */
export async function serveOutbound(o: {
  publicUrl?: string;
  redisUrl?: string;
  logger: Logger;
  campaigns?: CampaignStore;
  options?: OutboundOptions;
  /** The campaign slots' lease. @default CALL_SLOTS_DEFAULTS.leaseMs */
  slotLeaseMs?: number;
  /** The calls' records without Redis, where not this process's (a `--workers` machine's, held by its primary). */
  records?: CallRecords;
  /** Where `records` are kept, for the start-up lines. */
  recordsWhere?: string;
}): Promise<ServeOutbound> {
  const [{ outboundCalls, RedisCallRecords }, { campaignRoutes }, { MemoryCampaignStore }] = await Promise.all([
    import('../../transports/telephony/index.ts'),
    import('../campaign/routes.ts'),
    import('../campaign/store.ts'),
  ]);
  let redis: Redis | undefined;
  let store = o.campaigns;
  let onControl: ((id: string) => Promise<void>) | undefined;
  let closeQueue: (() => Promise<void>) | undefined;
  let slots: SlotKeeper | undefined;
  if (o.redisUrl) {
    const [{ connectRedis }, { RedisCampaignStore }, { CallSlots, SlotKeeper }] = await Promise.all([import('../cluster/redis.ts'), import('../campaign/redis-store.ts'), import('../campaign/slots.ts')]);
    redis = connectRedis(o.redisUrl);
    // Campaign calls whose callbacks or sessions reach this instance keep their slots from here (docs/campaigns.md#on-a-cluster).
    slots = new SlotKeeper(new CallSlots(redis, o.slotLeaseMs ? { leaseMs: o.slotLeaseMs } : {}), { onError: (err) => o.logger.warn({ err: err.message }, 'campaign slots not renewed') });
    redis.on('error', (err: Error) => o.logger.warn({ err: err.message }, 'outbound: Redis unreachable, calls\' callbacks are answered 503 until it is back'));
    store ??= new RedisCampaignStore(redis);
    // A resume or a cancel wakes the campaign's delayed jobs (BullMQ, made on first use).
    onControl = async (id) => {
      if (!closeQueue) {
        const { CampaignQueue } = await import('../campaign/queue.ts');
        const queue = new CampaignQueue(o.redisUrl!);
        closeQueue = () => queue.close();
        onControl = (i) => queue.wake(i);
      }
      await onControl!(id);
    };
  }
  const records = redis ? new RedisCallRecords(redis) : o.records;
  const outbound = outboundCalls({ publicUrl: o.publicUrl, ...o.options, ...(records ? { records } : {}), ...(slots ? { slots } : {}) });
  const campaigns = campaignRoutes({
    store: store ?? new MemoryCampaignStore(),
    ...(onControl ? { onControl: (id: string, action: string) => (action === 'pause' ? Promise.resolve() : onControl!(id)) } : {}),
    ...(store ? {} : { unknownHint: 'without Redis, a campaign runs in its `hiwar campaign start` process, which answers for it' }),
  });
  const routes: PluginFactory = async (ctx) => {
    const parts = (await Promise.all([outbound.routes(ctx), campaigns(ctx)])).filter((p): p is ServerPlugin => !!p);
    return {
      name: 'outbound',
      async handleRequest(req, res, url) {
        for (const p of parts) if (await p.handleRequest?.(req, res, url)) return true;
        return false;
      },
      async close() {
        for (const p of parts) await p.close?.();
        await close();
      },
    };
  };
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      await outbound.close();
      slots?.stop();
      await closeQueue?.();
      redis?.disconnect();
    })());
  return { outbound, routes, callEnded: (call, report) => outbound.callEnded(call, report), callStarted: (call) => outbound.callStarted(call), where: redis ? 'Redis' : o.records ? (o.recordsWhere ?? 'this machine') : 'this process', close };
}

/**
 * Stops `hiwar call` and `hiwar campaign start|worker` before they start a server when no call
 * could be placed: no caller ID (`--from`, else HIWAR_CALL_FROM), or no platform to dial through
 * (`--platform`, else HIWAR_CALL_PLATFORM, else the only one whose credentials are set).
 */
export async function checkDialling(from: string | undefined, platform: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const caller = from || env.HIWAR_CALL_FROM;
  if (!caller) throw new CliError('no caller ID: give --from (or set HIWAR_CALL_FROM)');
  if (!E164.test(caller)) throw new CliError(`--from must be an E.164 number (+ then 8 to 15 digits), got "${caller}"`);
  const { platformsFromEnv } = await import('../../transports/telephony/outbound/routes.ts');
  const configured = Object.keys(platformsFromEnv(env));
  const chosen = platform || env.HIWAR_CALL_PLATFORM;
  const creds = 'TWILIO_ACCOUNT_SID + TWILIO_AUTH_TOKEN, TELNYX_API_KEY + TELNYX_CONNECTION_ID, PLIVO_AUTH_ID + PLIVO_AUTH_TOKEN, or VONAGE_APPLICATION_ID + VONAGE_PRIVATE_KEY';
  if (configured.length === 0) throw new CliError(`no platform is configured for outbound calls: set the credentials of one (${creds})`);
  if (!chosen && configured.length > 1) throw new CliError(`several platforms are configured (${configured.join(', ')}): say which with --platform (or HIWAR_CALL_PLATFORM)`);
  if (chosen && !configured.includes(chosen)) throw new CliError(`platform "${chosen}" is not configured for outbound calls (configured: ${configured.join(', ')})`);
}
