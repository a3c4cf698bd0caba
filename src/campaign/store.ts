import { campaignSettings, type CampaignSettings } from './schedule.ts';
import type { AttemptOutcome, CampaignState, Contact, ContactState, NotPlaced } from './types.ts';
import { parseWindow } from './window.ts';

/** A campaign as stored: its settings in plain JSON (the window as its text). */
export interface CampaignMeta {
  id: string;
  state: CampaignState;
  /** ISO time it was created. */
  createdAt: string;
  total: number;
  window?: string;
  concurrency: number;
  retries: number;
  retryAfterMs: number;
  retryOn: AttemptOutcome[];
  /** The agent's name, for reports. */
  agent?: string;
}

/** A campaign's progress, as `hiwar campaign status` and `GET /campaigns/:id` show it. */
export interface CampaignStatus extends CampaignMeta {
  /** Contacts by status (pending, dialling, done, do-not-call, cancelled). */
  contacts: Record<string, number>;
  /** Final outcomes of finished contacts (completed, busy, no-answer…). */
  outcomes: Record<string, number>;
  /** Calls placed so far, retries included: dials the platform took (not those refused, unreachable or invalid). */
  dials: number;
  /** Attempts for which nothing was dialled, by why (`NotPlaced`); absent when every dial was placed. */
  notPlaced?: Partial<Record<NotPlaced, number>>;
  /** Contacts waiting for a retry, by their last attempt's outcome (busy, no-answer…); absent when none is. */
  retrying?: Record<string, number>;
  /** When the first of those retries may be dialled (campaign-clock ms), the window permitting. */
  nextRetryAt?: number;
}

/**
 * Where a campaign's state lives: in memory for the in-process runner, in Redis for workers on
 * many instances. `claim` is the idempotence guard: it records an attempt as started, once.
 */
export interface CampaignStore {
  /** Records a new campaign: its settings, its contacts and its own do-not-call numbers. */
  create(meta: CampaignMeta, contacts: Contact[], doNotCall?: Iterable<string>): Promise<void>;
  /** A campaign's settings and state, or undefined if there is none by that id. */
  meta(id: string): Promise<CampaignMeta | undefined>;
  /** Runs, pauses or cancels a campaign. */
  setState(id: string, state: CampaignState): Promise<void>;
  /** One contact's state (its attempts and result), by its index in the list. */
  contact(id: string, index: number): Promise<ContactState | undefined>;
  /** Every contact's state, in list order. */
  contacts(id: string): Promise<ContactState[]>;
  /** Saves `next` (the record with its new started attempt) unless that attempt was claimed before; true when this caller owns the dial. */
  claim(id: string, next: ContactState): Promise<boolean>;
  /** Saves a contact's state (an attempt's outcome, a result streamed). */
  save(id: string, state: ContactState): Promise<void>;
  /** Whether the number is on the campaign's do-not-call list or the shared one. */
  doNotCall(id: string, number: string): Promise<boolean>;
  /** Adds numbers to the shared do-not-call list (every campaign's). */
  addDoNotCall(numbers: Iterable<string>): Promise<void>;
  /** Counts a contact as finished (once, however often told); true when every contact is, and the campaign is then marked done. */
  finished(id: string, index: number): Promise<boolean>;
}

/** A campaign's settings, from its stored meta. */
export function settingsOf(m: CampaignMeta): CampaignSettings {
  return campaignSettings({ concurrency: m.concurrency, retries: m.retries, retryAfterMs: m.retryAfterMs, retryOn: m.retryOn, ...(m.window ? { window: parseWindow(m.window) } : {}) });
}

/** Counts contacts by status and final outcome. */
export function statusOf(meta: CampaignMeta, states: ContactState[]): CampaignStatus {
  const contacts: Record<string, number> = {};
  const outcomes: Record<string, number> = {};
  const notPlaced: Partial<Record<NotPlaced, number>> = {};
  const retrying: Record<string, number> = {};
  let nextRetryAt: number | undefined;
  let dials = 0;
  for (const s of states) {
    contacts[s.status] = (contacts[s.status] ?? 0) + 1;
    // A dial the platform never took is no call placed (records from before `notPlaced` say `invalid` alone).
    dials += s.attempts.filter((a) => a.outcome !== 'invalid' && !a.notPlaced).length;
    for (const a of s.attempts) if (a.notPlaced) notPlaced[a.notPlaced] = (notPlaced[a.notPlaced] ?? 0) + 1;
    const o = s.status === 'done' ? s.attempts.at(-1)?.outcome : undefined;
    if (o) outcomes[o] = (outcomes[o] ?? 0) + 1;
    // A pending contact already tried waits for its retry: counted here, not among the final outcomes.
    const tried = s.status === 'pending' ? s.attempts.at(-1)?.outcome : undefined;
    if (tried) {
      retrying[tried] = (retrying[tried] ?? 0) + 1;
      nextRetryAt = Math.min(nextRetryAt ?? Infinity, s.notBefore);
    }
  }
  return { ...meta, contacts, outcomes, dials, ...(Object.keys(notPlaced).length ? { notPlaced } : {}), ...(nextRetryAt !== undefined ? { retrying, nextRetryAt } : {}) };
}

/** The in-process runner's store: one machine, nothing survives the process. */
export class MemoryCampaignStore implements CampaignStore {
  private readonly metas = new Map<string, CampaignMeta>();
  private readonly states = new Map<string, ContactState[]>();
  private readonly dnc = new Map<string, Set<string>>();
  private readonly shared = new Set<string>();
  private readonly claimed = new Set<string>();
  private readonly done = new Map<string, Set<number>>();

  async create(meta: CampaignMeta, contacts: Contact[], doNotCall: Iterable<string> = []): Promise<void> {
    if (this.metas.has(meta.id)) throw new Error(`campaign ${meta.id} exists already`);
    this.metas.set(meta.id, { ...meta });
    this.states.set(meta.id, contacts.map((contact, index) => ({ index, contact, status: 'pending', attempts: [], notBefore: 0 })));
    this.dnc.set(meta.id, new Set(doNotCall));
  }
  async meta(id: string) {
    const m = this.metas.get(id);
    return m && { ...m };
  }
  async setState(id: string, state: CampaignState) {
    const m = this.metas.get(id);
    if (!m) throw new Error(`no campaign ${id}`);
    m.state = state;
  }
  async contact(id: string, index: number) {
    return structuredClone(this.states.get(id)?.[index]);
  }
  async contacts(id: string) {
    return structuredClone(this.states.get(id) ?? []);
  }
  async claim(id: string, next: ContactState) {
    const key = `${id}:${next.index}:${next.attempts.at(-1)!.attempt}`;
    if (this.claimed.has(key)) return false;
    this.claimed.add(key);
    await this.save(id, next);
    return true;
  }
  async save(id: string, state: ContactState) {
    const all = this.states.get(id);
    if (!all) throw new Error(`no campaign ${id}`);
    all[state.index] = structuredClone(state);
  }
  async doNotCall(id: string, number: string) {
    return this.shared.has(number) || !!this.dnc.get(id)?.has(number);
  }
  async addDoNotCall(numbers: Iterable<string>) {
    for (const n of numbers) this.shared.add(n);
  }
  async finished(id: string, index: number) {
    const set = this.done.get(id) ?? new Set<number>();
    this.done.set(id, set.add(index));
    const m = this.metas.get(id);
    if (!m || set.size < m.total) return false;
    if (m.state === 'running' || m.state === 'paused') m.state = 'done';
    return true;
  }
}
