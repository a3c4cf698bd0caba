import { docPath } from '../docs-path.ts';
import type { SessionEvent } from './events.ts';
import type { Failure, FailureSource } from './failure.ts';
import type { CallControl, Transport, TransferOptions } from '../transport/types.ts';
import { transferFailure } from './transfer-failure.ts';

/** What the caller hears, and the model reads, when a transfer fails and the call goes on. */
export const CALL_ACTION_DEFAULTS = {
  /** Said to the caller (the agent's `transferFailedLine` wins): the transfer failed, the agent stays. */
  transferFailedLine: 'عذرًا، تعذّر تحويل مكالمتك الآن، وما زلت معك. كيف يمكنني مساعدتك؟',
  /** Added to the model's history (a system message) before that line, so its next reply knows. */
  transferFailedNote: (target: string, why: string) => `تعذّر تحويل المكالمة إلى ${target} (${why}). المتصل ما زال على الخط معك، وقد أُبلغ بذلك.`,
} as const;

/** Hang-up or transfer asked for by a tool, done once the reply it was asked in has been heard. */
type CallAction = { action: 'hangup'; reason: string } | { action: 'transfer'; target: string; opts?: TransferOptions };

/** What the actions need from the session. */
export interface CallActionHost {
  isEnding(): boolean;
  end(reason: string): Promise<void>;
  emit(e: SessionEvent): void;
  /** A typed error event (clean message; the raw cause to the log only). */
  fail(source: FailureSource, f: Failure, fatal: boolean, cause?: unknown): void;
  /** The call left this session (transferred): nothing to hang up at the end. */
  released(): void;
  /** A transfer failed and the call goes on with the agent: tell the model (`note`) and the caller. */
  stayWithCaller(note: string): void;
}

/**
 * The agent's hold on the call (`CallControl`, given to tools and hooks): hang-up and transfer
 * wait for the reply being spoken to end, so the model's "I am transferring you" is heard; a
 * transport that cannot transfer or send DTMF says so to the tool, which tells the model.
 */
export class CallActions {
  readonly control: CallControl;
  private pending: CallAction | undefined;
  private replying = 0;
  /** End reason of a transfer under way: the transport may report the caller gone meanwhile. */
  transferring: string | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly host: CallActionHost,
  ) {
    this.control = {
      info: transport.call,
      hangup: async (reason = 'agent hung up') => this.request({ action: 'hangup', reason }),
      transfer: async (target, opts) => {
        if (!transport.transfer) {
          // Said to the tool now, before its "I am transferring you" reply: after it, the caller
          // would be left waiting on a line that was never going to move.
          const err = new Error(`this line (${transport.call.provider}) cannot transfer calls: give it a transfer hook (${docPath('docs/telephony.md')}, "Keys, transfer and hang-up in an agent")`);
          // One failure, one event: the tool's, when it passes this on (as send_dtmf's is).
          this.host.emit({ type: 'call_action', action: 'transfer', target, ok: false, message: `transfer to ${target} failed: ${err.message}` });
          throw err;
        }
        this.request({ action: 'transfer', target, ...(opts?.summary ? { opts: { summary: opts.summary } } : {}) });
      },
      sendDtmf: async (digits) => {
        if (!transport.sendDtmf) throw new Error(`this transport (${transport.call.provider}) cannot send DTMF`);
        await transport.sendDtmf(digits);
      },
    };
  }

  /** Runs `reply`; an action asked meanwhile waits for it to end. */
  async during<T>(reply: () => Promise<T>): Promise<T> {
    this.replying++;
    try {
      return await reply();
    } finally {
      this.replying--;
    }
  }

  get hasPending(): boolean {
    return this.pending !== undefined;
  }

  private request(action: CallAction): void {
    if (this.host.isEnding()) return;
    this.pending ??= action;
    // Asked outside a reply (a hook): nothing to wait for.
    if (!this.replying) void this.runPending();
  }

  /**
   * Hangs up or transfers as asked; called when the reply it was asked in is over. False when the
   * transfer failed, true otherwise. A failed transfer the call goes on after (not `endsCall`, the
   * reply's tool in `endCallAfterTools`) is told to the model and the caller: the agent had just
   * said it was transferring them.
   */
  async runPending(endsCall = false): Promise<boolean> {
    const a = this.pending;
    if (!a || this.host.isEnding()) return true;
    this.pending = undefined;
    if (a.action === 'hangup') {
      this.host.emit({ type: 'call_action', action: 'hangup', ok: true });
      await this.host.end(a.reason);
      return true;
    }
    try {
      this.transferring = `transferred to ${a.target}`;
      await (a.opts ? this.transport.transfer!(a.target, a.opts) : this.transport.transfer!(a.target));
      this.host.emit({ type: 'call_action', action: 'transfer', target: a.target, ok: true });
      this.host.released();
      await this.host.end(this.transferring);
      return true;
    } catch (err) {
      this.transferring = undefined;
      const message = `transfer to ${a.target} failed: ${(err as Error).message}`;
      this.host.emit({ type: 'call_action', action: 'transfer', target: a.target, ok: false, message });
      const { source, failure } = transferFailure(a.target, err);
      this.host.fail(source, failure, false, err);
      if (!endsCall && !this.host.isEnding()) this.host.stayWithCaller(CALL_ACTION_DEFAULTS.transferFailedNote(a.target, failure.message));
      return false;
    }
  }
}
