/**
 * What `hiwar serve` offers to the adapters that bring calls in (telephony routes, WebRTC rooms).
 * The server in `src/server/` knows nothing of providers: the CLI mounts each adapter's plugin,
 * and an adapter turns its connections into `Transport`s and hands them to the `CallHost`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Agent } from '../session/agent.ts';
import type { SessionEvent } from '../session/events.ts';
import type { Logger } from '../session/logger.ts';
import type { CallInfo, Transport } from '../transport/types.ts';
import type { CallTokens } from './tokens.ts';
import type { TokenLedger } from './token-ledger.ts';

/**
 * How a call ended, for metrics and logs. `server-shutdown`: still running when a drain ran out
 * of time, ended by the server with its closing line.
 */
export type CallOutcome = 'completed' | 'caller-hangup' | 'agent-hangup' | 'transferred' | 'failed' | 'refused' | 'server-shutdown';

/** What an adapter may want to follow of the session it hands a call to (captions on a web page). */
export interface CallObserver {
  /** Every event of the call's session, as it happens. */
  onEvent?(event: SessionEvent): void;
}

/**
 * Something a call showed about the server's set-up that the user must fix (a `warning` server
 * event). `hangup_hook_missing`: hiwar closed the call's media stream, and the platform keeps the
 * call up unless a `hangup` provider hook ends it by its API (Telnyx Call Control).
 * `outbound_no_media`: a call this server placed was answered and its media stream never
 * connected to any instance, so hiwar hung it up (a stream URL the platform cannot reach, a proxy
 * that drops WebSocket upgrades, instances with different media secrets).
 */
export interface ServerWarning {
  code: 'hangup_hook_missing' | 'outbound_no_media';
  call: CallInfo;
  /** What happened and what to give, naming the hook and the docs' section. */
  message: string;
}

/** The server's side, as an adapter sees it. */
export interface CallHost {
  /**
   * Runs one agent session on the transport until the call ends. Throws `CallRefused` when the
   * server is draining or full; the adapter then tells the platform (busy, close).
   */
  runCall(transport: Transport, observer?: CallObserver): Promise<CallOutcome>;
  /** True once SIGTERM arrived: adapters stop issuing new stream URLs and tokens. */
  readonly draining: boolean;
  /** The address the server is reached at from outside (for webhook answers), e.g. https://host. */
  publicUrl(req: IncomingMessage): string;
  /**
   * Holds a call's place for a connection that has not started its call yet (no platform `start`),
   * so that pending connections count against the server's call limit. Undefined when the server
   * is full, or draining and the connection is not for a call promised before (see `promise`).
   * `release()` before `runCall`, or when the connection goes without a call.
   */
  hold?(o?: HoldOptions):
    | {
        /** Gives the held place back. */
        release(): void;
      }
    | undefined;
  /**
   * A webhook answer promised the platform a media connection for call `key` (`provider:callId`)
   * until `until` (epoch ms, the media token's expiry): a drain that starts meanwhile waits for it
   * and lets it in (`hold({ call: key })`, then `runCall`), since the platform has already
   * answered that caller. `o.placed`: a call this server placed (outbound), still ringing; a
   * drain waits for it up to `o.waitMs` (its ring timeout, then the few seconds media takes).
   */
  promise?(key: string, until: number, o?: PromiseOptions): void;
  /**
   * A call this server placed (`promise` with `placed`) was answered, its media not here yet: a
   * person may be on the line, so a drain waits for its media as for a webhook answer's, a few
   * seconds from now (`DRAIN_DEFAULTS.promisedMediaWaitMs`, within the drain's own limit), and no
   * longer hangs it up as a call still ringing. Nothing once its media came.
   */
  answered?(key: string): void;
  /** The promised media will not come (a placed call ended unanswered, or its dial failed): a drain stops waiting for it. */
  withdraw?(key: string): void;
  /** Tells the server's user (a `warning` event of `createAgentServer`); what it throws is logged. */
  warn?(warning: ServerWarning): void;
}

/** How long a drain waits for one promised media connection, and why it was promised. */
export interface PromiseOptions {
  /** How long from now a drain waits for it. @default DRAIN_DEFAULTS.promisedMediaWaitMs */
  waitMs?: number;
  /** A call this server placed, ringing (the drain's log names it apart from answered webhooks). */
  placed?: boolean;
  /**
   * Hangs the placed call up with its platform: a drain calls it for a call still ringing when
   * it stops waiting (its bound passed). Resolves true once cancelled, false when the call no
   * longer rang (answered or ended meanwhile); rejects when the platform refused.
   */
  cancel?(): Promise<boolean>;
  /**
   * For a placed call answered whose media has not come here: finds out whether it reached another
   * instance (its media token spent in the shared ledger), else hangs the call up with its
   * platform. The placing side runs it once (its own watchdog, `OUTBOUND_DEFAULTS.mediaWaitMs`
   * after the answer); a drain that stops waiting for the media asks it too, to say what became of it.
   */
  noMedia?(): Promise<NoMediaResult>;
}

/** What became of an answered placed call whose media did not come here in time (`PromiseOptions.noMedia`). */
export type NoMediaResult =
  /** Its media connected (on another instance of the cluster, when not here): nothing was hung up. */
  | { kind: 'connected' }
  /** Hung up with its platform: the callee would have heard silence. */
  | { kind: 'hung-up' }
  /** Over meanwhile (its outcome recorded, or the platform no longer had it). */
  | { kind: 'over' }
  /** Not hung up, and why (the platform refused, a client without `hangUp`, a ledger that cannot say). */
  | { kind: 'kept'; why: string };

/** What a connection asking for a place says about itself. */
export interface HoldOptions {
  /** The adapter's name, for the refusal count (`hiwar_calls_total{outcome="refused"}`). */
  provider?: string;
  /** `provider:callId` of the call a checked token names: let in during a drain when promised before it. */
  call?: string;
  /** When the adapter closes this connection if its call has not started (its start timeout, epoch ms), for the drain's log. */
  until?: number;
}

/**
 * A call the server will not take: draining, full, busy (cluster queue), or no agent for it (the
 * agent chooser found none or failed; see `createAgentServer`'s `agentFor`).
 */
export class CallRefused extends Error {
  constructor(readonly reason: 'draining' | 'full' | 'busy' | 'no agent' | 'missing variables') {
    super(`call refused: ${reason}`);
    this.name = 'CallRefused';
  }
}

/** One adapter mounted on the server. Each handler returns true when the request was its own. */
export interface ServerPlugin {
  readonly name: string;
  /** Answers an HTTP request it owns (true), or leaves it to the next plugin (false). */
  handleRequest?(req: IncomingMessage, res: ServerResponse, url: URL): boolean | Promise<boolean>;
  /** Takes a WebSocket upgrade it owns (true), or leaves it to the next plugin (false). */
  handleUpgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): boolean;
  /** Stops taking new connections and frees what the plugin holds (after calls drained). */
  close?(): Promise<void>;
}

/**
 * What a platform can only do through its REST API (transfer on Telnyx Call Control, Exotel,
 * FreeSWITCH ESL, Asterisk ARI), wired by you to your credentials. The same shape as the telephony
 * transport's `PlatformHooks`.
 */
export interface ProviderHooks {
  /**
   * Hands the call on to `target` (a number or SIP URI the agent's tool chose); the stream closes
   * after it resolves. `opts.summary`: the one given to `call.transfer(target, { summary })`, for
   * you to carry where the platform can (a SIP header: docs/telephony.md). `opts` is always given
   * (`{}` without a summary), so the hook may destructure it.
   */
  transfer?(call: CallInfo, target: string, opts: { summary?: string }): Promise<void>;
  /**
   * Told that the agent hung up (before the stream closes), or that hiwar gave up on a call whose
   * caller is still on (refused, its session failed; `reason` is the outcome), e.g. to end it by API.
   */
  hangup?(call: CallInfo, reason?: string): Promise<void>;
}

/** What a plugin factory is given when the server composes it (see `PluginFactory`). */
export interface PluginContext {
  /** Where the plugin hands its calls. */
  host: CallHost;
  logger: Logger;
  /**
   * Whether routes whose secret is not configured may answer without it (webhook signatures,
   * media tokens, the WebRTC token route's secret). Development only; never inferred.
   */
  open: boolean;
  /** The issuer of per-call media tokens (one per server, shared by its plugins). */
  tokens: CallTokens;
  /** A fixed media token for platforms pointed straight at a media URL (FreeSWITCH, Asterisk…). */
  mediaToken?: string;
  /** Where spent tokens and nonces are remembered (one server's, or a cluster's in Redis). */
  ledger: TokenLedger;
  /** REST hooks by provider name (`telnyx`, `exotel`, `freeswitch`, `asterisk`…). */
  providerHooks: Record<string, ProviderHooks>;
  /**
   * The agent the server would give this call (its `agentFor`, else its `agent`), for a plugin
   * that checks a call before it exists (an outbound call's variables, before dialling).
   */
  agentOf?(call: CallInfo): Promise<Agent | undefined>;
}

/**
 * Makes a plugin once the server exists (so it can be given the server's `CallHost`). Returning
 * undefined mounts nothing (an optional part that is not installed, after saying so).
 */
export type PluginFactory = (ctx: PluginContext) => ServerPlugin | undefined | Promise<ServerPlugin | undefined>;
