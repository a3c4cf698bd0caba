/**
 * A campaign's schedule, pure: which contact to dial when, given a calling window in each
 * contact's time zone, a concurrency limit, retries after busy / no answer / an unreachable
 * phone, and a do-not-call check before every dial. It owns no clock and no timer: the runner asks
 * `due(now)` and waits until the `wakeAt` it returns (a virtual clock in tests), and reports each
 * attempt's outcome with `finished`. Every attempt has a key (`<contact>#<n>`) that is handed out
 * once: a runner that dies after `due` and restarts from `state()` never dials it again.
 */
import { checkTimeZone, nextOpening, parseWindow, type CallingWindow } from './window.ts';

/** Defaults of a campaign. */
export const CAMPAIGN_DEFAULTS = {
  /** Calls at once. */
  concurrency: 1,
  /** Attempts after the first, for a retryable outcome. */
  retries: 2,
  /** Wait before a retry. */
  retryAfterMs: 2 * 3600_000,
  /** Outcomes worth calling again. */
  retryOn: ['busy', 'no-answer', 'machine-unavailable'] as readonly string[],
} as const;

/** One person to call: a number, its variables, and optionally their time zone. */
export interface Contact {
  /** Unique in the campaign (a CSV row number, a customer id). */
  id: string;
  number: string;
  variables?: Record<string, string>;
  /** IANA zone of the contact; default: the window's. */
  timeZone?: string;
}

/** Options of a campaign's schedule. */
export interface CampaignOptions {
  /** "Sun-Thu 09:00-21:00 Asia/Riyadh"; none: any time. */
  window?: string | CallingWindow;
  /** @default CAMPAIGN_DEFAULTS.concurrency */
  concurrency?: number;
  /** @default CAMPAIGN_DEFAULTS.retries */
  retries?: number;
  /** @default CAMPAIGN_DEFAULTS.retryAfterMs */
  retryAfterMs?: number;
  /** Asked before every dial; true skips the contact for good (`do-not-call`). */
  doNotCall?(number: string): boolean;
}

/** One dial the runner should place now. */
export interface Attempt {
  /** `<contact id>#<attempt number from 1>`: dial it once, report it once. */
  key: string;
  contact: Contact;
  n: number;
}

/** Where one contact stands. */
export interface ContactState {
  contact: Contact;
  attempts: number;
  /** Not before this time (a retry's wait). */
  notBefore: number;
  /** Dialled and not reported yet. */
  running?: string;
  /** Final: the last outcome, `do-not-call`, or `outside-window` when the window never opens. */
  result?: string;
  outcomes: string[];
}

/** The schedule of one campaign. */
export class CampaignSchedule {
  private readonly window?: CallingWindow;
  private readonly states: ContactState[];
  private readonly handedOut = new Set<string>();
  private readonly o: Required<Omit<CampaignOptions, 'window' | 'doNotCall'>> & Pick<CampaignOptions, 'doNotCall'>;

  constructor(contacts: Contact[], opts: CampaignOptions = {}, start = 0) {
    this.window = typeof opts.window === 'string' ? parseWindow(opts.window) : opts.window;
    this.o = {
      concurrency: opts.concurrency ?? CAMPAIGN_DEFAULTS.concurrency,
      retries: opts.retries ?? CAMPAIGN_DEFAULTS.retries,
      retryAfterMs: opts.retryAfterMs ?? CAMPAIGN_DEFAULTS.retryAfterMs,
      doNotCall: opts.doNotCall,
    };
    if (!(this.o.concurrency >= 1)) throw new Error('a campaign needs a concurrency of at least 1');
    const ids = new Set<string>();
    for (const c of contacts) {
      if (ids.has(c.id)) throw new Error(`contact ${c.id} appears twice`);
      ids.add(c.id);
      if (c.timeZone) checkTimeZone(c.timeZone, `contact ${c.id}`);
    }
    this.states = contacts.map((contact) => ({ contact, attempts: 0, notBefore: start, outcomes: [] }));
  }

  /** Attempts to dial now (never more running than the concurrency), and when to ask again. */
  due(now: number): { dial: Attempt[]; wakeAt?: number } {
    const dial: Attempt[] = [];
    let wakeAt: number | undefined;
    let running = this.states.filter((s) => s.running).length;
    for (const s of this.states) {
      if (s.result || s.running) continue;
      let at: number | undefined = Math.max(now, s.notBefore);
      if (this.window) at = nextOpening(this.window, at, s.contact.timeZone ?? this.window.timeZone);
      if (at === undefined) {
        s.result = 'outside-window';
        continue;
      }
      if (at > now) {
        wakeAt = Math.min(wakeAt ?? at, at);
        continue;
      }
      if (running >= this.o.concurrency) continue;
      // Checked at every dial, not once: a number may be added to the list mid-campaign.
      if (this.o.doNotCall?.(s.contact.number)) {
        s.result = 'do-not-call';
        continue;
      }
      const key = `${s.contact.id}#${s.attempts + 1}`;
      if (this.handedOut.has(key)) continue;
      this.handedOut.add(key);
      s.attempts++;
      s.running = key;
      running++;
      dial.push({ key, contact: s.contact, n: s.attempts });
    }
    return { dial, ...(wakeAt !== undefined ? { wakeAt } : {}) };
  }

  /** Reports an attempt's outcome; a retryable one is tried again after `retryAfterMs`, while retries remain. */
  finished(key: string, outcome: string, now: number): void {
    const s = this.states.find((x) => x.running === key);
    if (!s) return; // unknown or reported already: once only
    s.running = undefined;
    s.outcomes.push(outcome);
    if (CAMPAIGN_DEFAULTS.retryOn.includes(outcome) && s.attempts <= this.o.retries) s.notBefore = now + this.o.retryAfterMs;
    else s.result = outcome;
  }

  /** True once every contact has a result. */
  get done(): boolean {
    return this.states.every((s) => s.result);
  }

  /** Every contact's state (copies). */
  state(): ContactState[] {
    return this.states.map((s) => ({ ...s, outcomes: [...s.outcomes] }));
  }
}
