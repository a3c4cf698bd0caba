/**
 * The answered calls a server placed whose media never connects: a watchdog per call
 * (`OUTBOUND_DEFAULTS.mediaWaitMs` of run time after the answer) asks the shared token ledger
 * whether the call's media token was spent on any instance and, if not, hangs the call up with
 * its platform; a drain that stops waiting asks the same check (run once per call).
 */
import { callMediaKey, type TokenLedger } from '../../../src/server/token-ledger.ts';
import type { CallHost, NoMediaResult } from '../../../src/server/types.ts';
import { runTimers } from '../../../src/service/run-time.ts';
import type { Logger } from '../../../src/session/logger.ts';
import type { OutboundCall } from './outbound-call.ts';
import type { CallChange } from './records.ts';
import type { OutboundPlatform, OutboundPlatformName } from './types.ts';

/** What the watch needs of the calls' registry. */
export interface NoMediaHost {
  /** The call's record as the records hold it now (any instance's callbacks included). */
  lookup(id: string): Promise<OutboundCall | undefined>;
  /** Appends a change to the call's record. */
  change(id: string, ch: CallChange): Promise<unknown>;
  platforms: Partial<Record<OutboundPlatformName, OutboundPlatform>>;
  ledger?: Pick<TokenLedger, 'spent'>;
  host?: Pick<CallHost, 'withdraw' | 'warn'>;
  logger?: Logger;
  /** How long after the answer the media may take. */
  waitMs: number;
  /** Checks kept at most (the oldest go first). */
  maxCalls: number;
}

export class NoMediaWatch {
  private readonly timers = new Map<string, unknown>();
  private readonly checks = new Map<string, Promise<NoMediaResult>>();

  constructor(private readonly h: NoMediaHost) {}

  /** The call was answered: its media is waited for `waitMs`, then checked. */
  answered(id: string): void {
    if (!this.timers.has(id)) this.timers.set(id, runTimers.set(() => void this.check(id), this.h.waitMs));
  }

  /** The call is over: nothing more to wait for. */
  over(id: string): void {
    runTimers.clear(this.timers.get(id));
    this.timers.delete(id);
  }

  /**
   * What became of the call's media, the same for every asker (the watchdog, a drain). Its media
   * connected anywhere (the ledger has its token spent): nothing is done. Else the platform is
   * asked to hang the call up (`OutboundPlatform.hangUp`) and, once it took the request, the call
   * is recorded hung up for want of media (`hangUpRequested`) and `completed` at once.
   */
  check(id: string): Promise<NoMediaResult> {
    let check = this.checks.get(id);
    if (!check) {
      check = this.run(id).catch((err: Error) => {
        this.h.logger?.warn({ call: id, err: err.message }, 'outbound call answered with no media was not hung up');
        return { kind: 'kept' as const, why: err.message };
      });
      this.checks.set(id, check);
      if (this.checks.size > this.h.maxCalls) this.checks.delete(this.checks.keys().next().value!);
    }
    return check;
  }

  /** Stops every watchdog (the registry closes). */
  close(): void {
    for (const t of this.timers.values()) runTimers.clear(t);
    this.timers.clear();
  }

  private async run(id: string): Promise<NoMediaResult> {
    const { h } = this;
    this.over(id);
    // As the records hold it now: another instance may have taken its last callback.
    const call = await h.lookup(id);
    if (!call || call.outcome) return { kind: 'over' };
    const key = `${call.platform}:${id}`;
    if (!h.ledger?.spent) return { kind: 'kept', why: 'the token ledger cannot say whether its media came (it has no spent())' };
    if (await h.ledger.spent(callMediaKey(key))) {
      // Connected, here or on another instance: a drain here has nothing more to wait for.
      h.logger?.debug({ call: id, platform: call.platform }, `outbound call ${id}: its media connected (here or on another instance)`);
      h.host?.withdraw?.(key);
      return { kind: 'connected' };
    }
    const client = h.platforms[call.platform];
    if (!client?.hangUp) return { kind: 'kept', why: 'its platform client has no hangUp' };
    // Recorded once the platform took it: a call it no longer had ended otherwise, and is not marked.
    if (!(await client.hangUp(call))) return { kind: 'over' };
    await h.change(id, { kind: 'hangup', at: new Date().toISOString(), reason: 'no-media' });
    const message = `outbound call hung up: answered, but no media came within ${h.waitMs / 1000} s`;
    h.logger?.warn({ call: id, platform: call.platform }, message);
    const info = { callId: id, provider: call.platform, from: call.from, to: call.to, direction: 'outbound' as const, parameters: call.variables };
    h.host?.warn?.({ code: 'outbound_no_media', call: info, message: `${message}: check that ${call.platform} can reach the stream URL (publicUrl, a proxy passing WebSocket upgrades) and that every instance has the same media secret (docs/outbound.md#an-answered-call-whose-media-never-comes)` });
    await h.change(id, { kind: 'status', at: new Date().toISOString(), update: { status: 'completed', raw: 'hung up by hiwar (no media came)' } });
    h.host?.withdraw?.(key);
    return { kind: 'hung-up' };
  }
}
