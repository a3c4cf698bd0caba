import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from '../session/logger.ts';
import type { Clock } from '../transport/clock.ts';
import type { ResultSink } from './results.ts';
import { CAMPAIGN_DEFAULTS, type CampaignSettings } from './schedule.ts';
import { runStep, type CampaignGate, type StepDeps } from './step.ts';
import { MemoryCampaignStore, statusOf, type CampaignMeta, type CampaignStatus, type CampaignStore } from './store.ts';
import type { CampaignState, Contact, Dialer } from './types.ts';

/** What a campaign is started with. */
export interface CampaignSpec {
  /** Default: a new random id. */
  id?: string;
  contacts: Contact[];
  settings: CampaignSettings;
  doNotCall?: Iterable<string>;
  agent?: string;
}

/** The meta a new campaign is stored with. */
export function newMeta(spec: CampaignSpec, createdAt: string): CampaignMeta {
  const s = spec.settings;
  if (spec.contacts.length === 0) throw new Error('a campaign needs at least one contact');
  if (spec.contacts.length > CAMPAIGN_DEFAULTS.maxContacts) throw new Error(`a campaign holds at most ${CAMPAIGN_DEFAULTS.maxContacts} contacts, got ${spec.contacts.length}`);
  const id = spec.id ?? `cmp-${randomUUID().slice(0, 8)}`;
  if (!/^[\w-]{1,64}$/.test(id)) throw new Error(`a campaign id is letters, digits, - and _ (at most 64), got "${id}"`);
  return { id, state: 'running', createdAt, total: spec.contacts.length, ...(s.window ? { window: s.window.text } : {}), concurrency: s.concurrency, retries: s.retries, retryAfterMs: s.retryAfterMs, retryOn: [...s.retryOn], ...(spec.agent ? { agent: spec.agent } : {}) };
}

/** Pause, resume or cancel: what each may follow. */
export async function controlCampaign(store: CampaignStore, id: string, action: 'pause' | 'resume' | 'cancel'): Promise<CampaignState> {
  const m = await store.meta(id);
  if (!m) throw new Error(`no campaign ${id}`);
  const from: Record<typeof action, CampaignState[]> = { pause: ['running'], resume: ['paused'], cancel: ['running', 'paused'] };
  const to: Record<typeof action, CampaignState> = { pause: 'paused', resume: 'running', cancel: 'cancelled' };
  if (!from[action].includes(m.state)) throw new Error(`campaign ${id} is ${m.state}: it cannot ${action}`);
  await store.setState(id, to[action]);
  return to[action];
}

/** Concurrency on one machine: calls of each campaign under way here. */
class LocalGate implements CampaignGate {
  private readonly busy = new Map<string, number>();
  async tryAcquire(id: string, concurrency: number) {
    const n = this.busy.get(id) ?? 0;
    if (n >= concurrency) return undefined;
    this.busy.set(id, n + 1);
    let given = false;
    return async () => {
      if (given) return;
      given = true;
      this.busy.set(id, (this.busy.get(id) ?? 1) - 1);
    };
  }
}

/**
 * Campaigns without Redis: the same steps as the queue's workers, run in this process on a
 * small list (a few thousand contacts), with the state in memory (a restart forgets it).
 */
export class InProcessCampaigns {
  readonly store: CampaignStore;
  private readonly deps: StepDeps;
  private readonly stop = new AbortController();
  private readonly clock: Clock;

  constructor(o: { dialer: Dialer; clock: Clock; sinks?: ResultSink[]; logger?: Logger; store?: CampaignStore; pollMs?: number; onSinkError?(err: Error): void }) {
    // Every waiting contact listens on the one stop signal.
    setMaxListeners(0, this.stop.signal);
    this.store = o.store ?? new MemoryCampaignStore();
    this.clock = o.clock;
    this.deps = { store: this.store, dialer: o.dialer, now: () => o.clock.now(), gates: [new LocalGate()], sinks: o.sinks, logger: o.logger, pollMs: o.pollMs, onSinkError: o.onSinkError };
  }

  /** Stores the campaign and runs it; resolves with its status once every contact is finished (or `close()`). */
  async run(spec: CampaignSpec, onStarted?: (id: string) => void): Promise<CampaignStatus> {
    const meta = newMeta(spec, new Date(this.clock.now()).toISOString());
    await this.store.create(meta, spec.contacts, spec.doNotCall);
    onStarted?.(meta.id);
    await Promise.all(spec.contacts.map((_, i) => this.contact(meta.id, i)));
    return this.status(meta.id);
  }

  /** The campaign's progress. */
  async status(id: string): Promise<CampaignStatus> {
    const m = await this.store.meta(id);
    if (!m) throw new Error(`no campaign ${id}`);
    return statusOf(m, await this.store.contacts(id));
  }

  /** Stops waiting contacts (calls under way end first); `run` then resolves. */
  close(): void {
    this.stop.abort(new Error('closed'));
  }

  private async contact(id: string, index: number): Promise<void> {
    while (!this.stop.signal.aborted) {
      const r = await runStep(this.deps, id, index);
      if (r.next === 'done') {
        await this.store.finished(id, index);
        return;
      }
      const wait = Math.max(0, r.at - this.clock.now());
      if (await this.clock.sleep(wait, this.stop.signal).then(() => false, () => true)) return;
    }
  }
}
