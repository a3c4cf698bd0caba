import type { SessionFactory } from '../server/calls.ts';
import type { FixedLineKind, SessionEvent, SessionState } from '../session/events.ts';
import type { CallInfo } from '../transport/types.ts';

/** What the live calls view keeps per call. */
export const LIVE_CALLS_DEFAULTS = {
  /** Turns whose latency is kept per call (the latest ones). */
  turnsKept: 20,
  /** Characters of the caller's last line shown. */
  lineChars: 200,
} as const;

/** One call in progress, as the live view shows it (and its JSON gives). */
export interface LiveCall {
  /** `provider:callId`, unique on an instance. */
  id: string;
  callId: string;
  provider: string;
  direction?: 'inbound' | 'outbound';
  /** ISO time the call's session started. */
  startedAt: string;
  state: SessionState;
  /** The agent speaking now (changes with a handoff). */
  agent?: string;
  /** The caller's last turn, as recognized (or keyed). */
  lastCallerLine?: string;
  /** The agent's last line: a reply as the caller heard it, or a fixed line as it begins. */
  lastAgentLine?: string;
  /** The agent's last line was a fixed line the session said on its own (out of service, closing). */
  fixedLine?: FixedLineKind;
  /** Caller turns so far. */
  turns: number;
  /** Voice-to-voice milliseconds of each answered turn so far (the latest `turnsKept`). */
  latenciesMs: number[];
  /** Whether the agent was cut off by the caller in its last reply. */
  interrupted: boolean;
  /**
   * The agent's tools running now (the model's tool calls started and not finished: each leaves
   * with its `tool` event, or with its reply's end), oldest first; absent when none runs.
   */
  tools?: LiveTool[];
  /** Failures so far in the call (the session's `error` events: a tool that threw, the model unreachable…). */
  failures?: number;
  /** The last of them: which part failed, how, whether it ended the call, and its clean message (never a raw cause). */
  lastFailure?: LiveFailure;
  /** For a web call: its WebRTC room, which a supervisor can join (listen in, take over). */
  room?: string;
  /** The instance running it (in a cluster). */
  instance?: string;
}

/** A tool running now in a live call: which, since when, and the reply that called it. */
export interface LiveTool {
  name: string;
  /** ISO time it started. */
  since: string;
  /** The model's id for the call, when it gave one. */
  callId?: string;
  /** The reply whose model called it (the session's reply number). */
  reply?: number;
}

/** A failure as the live view shows it: the fields of the session's `error` event. */
export type LiveFailure = Omit<Extract<SessionEvent, { type: 'error' }>, 'type'>;

/**
 * The calls running in this process, kept from each session's typed events (a wrapper of the
 * server's session factory, as tracing is): nothing in the session knows it is watched.
 */
export class LiveCalls {
  private readonly calls = new Map<string, LiveCall>();
  /** The reply number of a fixed line begun, by call: its text is shown as it starts (the call ends right after it). */
  private readonly fixedReplies = new Map<string, number>();
  private version = 0;

  /** Wraps the server's session factory so every call is listed while it runs. */
  sessions(inner: SessionFactory): SessionFactory {
    return async (transport) => {
      const session = await inner(transport);
      const agent = (session as { agent?: { name?: unknown } }).agent?.name;
      const live = this.add(transport.call, typeof agent === 'string' ? agent : undefined);
      session.events$.subscribe({
        next: (e) => {
          try {
            this.update(live, e);
          } catch {
            // the view loses a detail, never the call
          }
        },
        complete: () => this.remove(live.id),
        error: () => this.remove(live.id),
      });
      return session;
    };
  }

  /** The calls running now, oldest first (copies). */
  list(): LiveCall[] {
    return [...this.calls.values()].map((c) => ({ ...c, latenciesMs: [...c.latenciesMs], ...(c.tools ? { tools: c.tools.map((t) => ({ ...t })) } : {}) }));
  }

  /** Grows at every change (a publisher sends only when it moved). */
  get changes(): number {
    return this.version;
  }

  /** Lists a call (exported for tests and other transports; `sessions` does it for the server). */
  add(call: Pick<CallInfo, 'callId' | 'provider' | 'parameters'> & Partial<Pick<CallInfo, 'direction'>>, agent?: string): LiveCall {
    const id = `${call.provider}:${call.callId}`;
    const live: LiveCall = {
      id,
      callId: call.callId,
      provider: call.provider,
      ...(call.direction ? { direction: call.direction } : {}),
      startedAt: new Date().toISOString(),
      state: 'starting',
      ...(agent ? { agent } : {}),
      turns: 0,
      latenciesMs: [],
      interrupted: false,
      ...(call.provider === 'webrtc' && call.parameters.room ? { room: call.parameters.room } : {}),
    };
    this.calls.set(id, live);
    this.version++;
    return live;
  }

  /** Applies one session event to a listed call. */
  update(live: LiveCall, e: SessionEvent): void {
    if (e.type === 'state') live.state = e.state;
    else if (e.type === 'user_turn') {
      live.turns++;
      live.lastCallerLine = e.text.slice(0, LIVE_CALLS_DEFAULTS.lineChars);
    } else if (e.type === 'agent_handoff') live.agent = e.to;
    else if (e.type === 'reply_started' && e.line) {
      this.fixedReplies.set(live.id, e.reply);
      live.fixedLine = e.line;
    } else if (e.type === 'agent_chunk' && e.reply !== undefined && this.fixedReplies.get(live.id) === e.reply) {
      live.lastAgentLine = e.text.slice(0, LIVE_CALLS_DEFAULTS.lineChars);
    } else if (e.type === 'tool_started') {
      const tool: LiveTool = { name: e.name, since: new Date().toISOString(), ...(e.callId ? { callId: e.callId } : {}), ...(e.reply !== undefined ? { reply: e.reply } : {}) };
      live.tools = [...(live.tools ?? []), tool];
    } else if (e.type === 'tool') {
      const call = e.outcome.call;
      const at = live.tools?.findIndex((t) => (call.id && t.callId ? t.callId === call.id : t.name === call.name)) ?? -1;
      if (at < 0) return;
      setTools(live, live.tools!.filter((_, i) => i !== at));
    } else if (e.type === 'reply_dropped') {
      // A reply cut off drops the tools it still ran (abandoned: no `tool` event may come).
      setTools(live, live.tools?.filter((t) => t.reply !== e.reply));
    } else if (e.type === 'agent_turn') {
      setTools(live, live.tools?.filter((t) => e.reply === undefined || t.reply !== e.reply));
      live.interrupted = e.interrupted;
      live.lastAgentLine = (e.interrupted ? e.heardText : e.text).slice(0, LIVE_CALLS_DEFAULTS.lineChars);
      if (e.line) live.fixedLine = e.line;
      else delete live.fixedLine;
    }
    else if (e.type === 'error') {
      live.failures = (live.failures ?? 0) + 1;
      const { type: _type, ...failure } = e;
      live.lastFailure = failure;
    } else if (e.type === 'metrics' && e.metrics.voiceToVoiceMs !== undefined) {
      live.latenciesMs.push(e.metrics.voiceToVoiceMs);
      if (live.latenciesMs.length > LIVE_CALLS_DEFAULTS.turnsKept) live.latenciesMs.shift();
    } else if (e.type === 'ended') return this.remove(live.id);
    else return;
    this.version++;
  }

  private remove(id: string): void {
    this.fixedReplies.delete(id);
    if (this.calls.delete(id)) this.version++;
  }
}

/** The call's running tools, the field left out when none runs. */
function setTools(live: LiveCall, tools: LiveTool[] | undefined): void {
  if (tools?.length) live.tools = tools;
  else delete live.tools;
}
