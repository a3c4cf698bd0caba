import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerMatches } from '../server/tokens.ts';
import type { PluginFactory } from '../server/types.ts';
import { controlCampaign } from './in-process.ts';
import { resultOf, resultsCsv } from './results.ts';
import { statusOf, type CampaignStore } from './store.ts';

/** Options of the campaigns API on a server. */
export interface CampaignRoutesOptions {
  /** Where campaigns live (`RedisCampaignStore` on a cluster, the in-process runner's store alone). */
  store: CampaignStore;
  /** Bearer secret, the calls API's. @default process.env.HIWAR_CALLS_SECRET (unset: the routes are closed) */
  secret?: string;
  /** Told after a pause/resume/cancel, e.g. to wake the queue's delayed jobs (`CampaignQueue.wake`). */
  onControl?(id: string, action: 'pause' | 'resume' | 'cancel'): Promise<void>;
  /** Said beside the 404 of an unknown campaign (where this server's campaigns are, or are not). */
  unknownHint?: string;
}

/**
 * `GET /campaigns/:id` (progress: counts by status and outcome), `GET /campaigns/:id/results`
 * (every contact's last result: CSV, or JSON with `?format=json`) and `POST
 * /campaigns/:id/pause|resume|cancel`, behind the bearer secret of `POST /calls`
 * (`HIWAR_CALLS_SECRET`), closed without one whatever `open` says: a campaign reaches people.
 */
export function campaignRoutes(o: CampaignRoutesOptions): PluginFactory {
  return (c) => {
    const secret = o.secret ?? process.env.HIWAR_CALLS_SECRET;
    const json = (res: ServerResponse, status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
      return true;
    };
    const authorized = (req: IncomingMessage, res: ServerResponse) => {
      if (!secret) return !json(res, 403, { error: 'the campaigns API is closed: set HIWAR_CALLS_SECRET' });
      if (bearerMatches(req, secret)) return true;
      c.logger.warn({ route: req.url?.split('?')[0] }, 'campaigns API refused: wrong or missing bearer secret');
      return !json(res, 401, { error: 'wrong or missing bearer secret' });
    };
    return {
      name: 'campaigns',
      async handleRequest(req, res, url) {
        const m = /^\/campaigns\/([\w-]{1,64})(?:\/(pause|resume|cancel|results))?$/.exec(url.pathname);
        if (!m) return false;
        if (!authorized(req, res)) return true;
        const [, id, action] = m as unknown as [string, string, 'pause' | 'resume' | 'cancel' | 'results' | undefined];
        const meta = await o.store.meta(id);
        if (!meta) return json(res, 404, { error: `no campaign ${id}`, ...(o.unknownHint ? { hint: o.unknownHint } : {}) });
        if (!action && req.method === 'GET') return json(res, 200, statusOf(meta, await o.store.contacts(id)));
        if (action === 'results' && req.method === 'GET') {
          // Every contact's last result: as JSON when asked for, else the results CSV's columns.
          const states = await o.store.contacts(id);
          if (url.searchParams.get('format') === 'json') return json(res, 200, states.map((s) => resultOf(id, s, (ms) => new Date(ms).toISOString())));
          res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' }).end(resultsCsv(id, states));
          return true;
        }
        if (!action || action === 'results' || req.method !== 'POST') return json(res, 405, { error: 'GET /campaigns/:id[/results] or POST /campaigns/:id/pause|resume|cancel' });
        try {
          const state = await controlCampaign(o.store, id, action);
          await o.onControl?.(id, action).catch((err: Error) => c.logger.warn({ campaign: id, err: err.message }, 'campaigns API: onControl failed'));
          return json(res, 200, { id, state });
        } catch (err) {
          return json(res, 409, { error: (err as Error).message });
        }
      },
    };
  };
}
