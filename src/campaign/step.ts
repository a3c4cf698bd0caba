import type { Logger } from '../session/logger.ts';
import { resultOf, type ResultSink } from './results.ts';
import { afterOutcome, CAMPAIGN_DEFAULTS, decide, inWindow, started } from './schedule.ts';
import { settingsOf, type CampaignStore } from './store.ts';
import type { CallResult, ContactState, Dialer } from './types.ts';

/** A slot to place one call in; `undefined` from `tryAcquire` when none is free now. */
export interface CampaignGate {
  /** Takes a slot for the dial `dialId` of campaign `campaignId`; resolves with its release, or undefined when none is free. */
  tryAcquire(campaignId: string, concurrency: number, dialId: string): Promise<(() => Promise<void>) | undefined>;
  /** Holds the slot of a dial found started without an outcome while it is recovered (its call may be live); resolves with its release. */
  hold?(dialId: string): Promise<() => Promise<void>>;
}

/** What running a contact's next step takes: shared by the in-process and the BullMQ runners. */
export interface StepDeps {
  store: CampaignStore;
  dialer: Dialer;
  /** The campaign's clock (ms): windows and retries are read on it. */
  now(): number;
  /** Slots: the campaign's concurrency, and the service key's budget on a cluster. */
  gates: CampaignGate[];
  sinks?: ResultSink[];
  logger?: Logger;
  /** Told of a result a sink could not take (the campaign goes on). */
  onSinkError?(err: Error): void;
  /** How long to wait when paused or when no slot is free. @default CAMPAIGN_DEFAULTS.pollMs */
  pollMs?: number;
}

/** After a step: the contact is finished, or its next step is due at `at` (campaign clock). */
export type StepOutcome = { next: 'done' } | { next: 'later'; at: number; /** `poll`: paused or no free slot (look again soon), `due`: a retry or the window's opening. */ why: 'poll' | 'due' };

/**
 * Runs a contact's next step: dials it when it is due, in the window, not on the do-not-call list
 * and a slot is free; else says when to look again. The attempt is claimed (recorded as started)
 * before the call is placed, so a second worker, or this one after a crash, never dials it again:
 * an attempt found started with no outcome is asked of the dialler's `recover`, or counted as
 * `failed-unknown`.
 */
export async function runStep(d: StepDeps, campaignId: string, index: number): Promise<StepOutcome> {
  const poll = d.pollMs ?? CAMPAIGN_DEFAULTS.pollMs;
  let meta = await d.store.meta(campaignId);
  let c = await d.store.contact(campaignId, index);
  if (!meta || !c) return { next: 'done' };
  const s = settingsOf(meta);
  // A result saved by a worker that died before streaming it is streamed now (at least once; the dial id tells repeats).
  if (c.unreported) c = await report(d, campaignId, c);
  for (;;) {
    // Read again each turn: a pause or a cancel during a call applies to what follows it.
    meta = (await d.store.meta(campaignId)) ?? meta;
    const now = d.now();
    const dnc = await d.store.doNotCall(campaignId, c.contact.number);
    const decision = decide(c, s, now, dnc);
    switch (decision.kind) {
      case 'finished':
        return { next: 'done' };
      case 'do-not-call':
        return finish(d, campaignId, { ...c, status: 'do-not-call' });
      case 'recover': {
        const attempt = c.attempts.at(-1)!;
        const dial = dialOf(campaignId, c, decision.attempt);
        // The call may still be live: its slot is taken back (the same dial's, not a new one) until its outcome is known.
        const held = await Promise.all(d.gates.map((g) => g.hold?.(dial.dialId).catch(() => undefined)));
        let r: CallResult;
        try {
          r = (await d.dialer.recover?.(dial).catch(() => undefined)) ?? { outcome: 'failed-unknown' as const, error: 'the worker placing this call stopped before its outcome was known' };
        } finally {
          for (const release of held) await release?.().catch(() => {});
        }
        d.logger?.warn({ campaign: campaignId, contact: index, attempt: attempt.attempt, outcome: r.outcome }, 'campaign: an attempt found started without an outcome was resolved');
        c = await record(d, campaignId, c, r, s);
        continue;
      }
      case 'wait':
        if (meta.state === 'cancelled') return finish(d, campaignId, { ...c, status: 'cancelled' });
        return { next: 'later', at: decision.until, why: 'due' };
      case 'dial': {
        if (meta.state === 'cancelled') return finish(d, campaignId, { ...c, status: 'cancelled' });
        if (meta.state !== 'running') return { next: 'later', at: now + poll, why: 'poll' };
        const releases: (() => Promise<void>)[] = [];
        const dialId = dialOf(campaignId, c, decision.attempt).dialId;
        for (const g of d.gates) {
          const r = await g.tryAcquire(campaignId, s.concurrency, dialId);
          if (!r) break;
          releases.push(r);
        }
        try {
          if (releases.length < d.gates.length) return { next: 'later', at: now + poll, why: 'poll' };
          // The time may have moved while waiting on the gates: the window is checked again.
          const at = d.now();
          if (!inWindow(at, c, s)) continue;
          const next = started(c, decision.attempt, at);
          if (!(await d.store.claim(campaignId, next))) {
            // Claimed elsewhere (a duplicate job): its record is the truth.
            c = (await d.store.contact(campaignId, index))!;
            continue;
          }
          const dial = dialOf(campaignId, next, decision.attempt);
          let r: CallResult;
          try {
            r = await d.dialer.dial(dial);
          } catch (err) {
            r = { outcome: 'failed', error: (err as Error).message };
          }
          c = await record(d, campaignId, next, r, s);
        } finally {
          for (const release of releases) await release().catch(() => {});
        }
        if (c.status === 'done') return { next: 'done' };
        continue;
      }
    }
  }

  async function finish(deps: StepDeps, id: string, state: ContactState): Promise<StepOutcome> {
    await deps.store.save(id, { ...state, unreported: true });
    await report(deps, id, state);
    return { next: 'done' };
  }
}

/** Saves an attempt's outcome (marked unreported), streams it, then marks it reported. */
async function record(d: StepDeps, id: string, c: ContactState, r: CallResult, s: ReturnType<typeof settingsOf>): Promise<ContactState> {
  const next = { ...afterOutcome(c, r, s, d.now()), unreported: true as const };
  await d.store.save(id, next);
  return report(d, id, next);
}

async function report(d: StepDeps, id: string, c: ContactState): Promise<ContactState> {
  await emit(d, id, c);
  const { unreported: _, ...done } = c;
  await d.store.save(id, done);
  return done;
}

async function emit(d: StepDeps, id: string, state: ContactState): Promise<void> {
  const result = resultOf(id, state, (ms) => new Date(ms).toISOString());
  await Promise.all(
    (d.sinks ?? []).map((sink) =>
      sink.write(result).catch((err: Error) => {
        d.logger?.warn({ campaign: id, contact: state.index, err: err.message }, 'campaign: a result could not be delivered');
        try {
          d.onSinkError?.(err);
        } catch {
          // A hook that throws is not the campaign's failure.
        }
      }),
    ),
  );
}

/** The dial of one (contact, attempt). */
export function dialOf(campaignId: string, c: ContactState, attempt: number) {
  return { campaignId, index: c.index, contact: c.contact, attempt, dialId: `${campaignId}:${c.index}:${attempt}` };
}
