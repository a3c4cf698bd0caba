/**
 * Whether the voice service can be reached, for `/readyz`: an instance whose service key is
 * refused or whose service URL points nowhere (the embedded sandbox stopped, a wrong
 * `HIWAR_BASE_URL`) can only apologise to every caller, so a load balancer should send calls
 * elsewhere. What the calls' sessions met (their sockets opened, or failed for good) counts as a
 * check; only when nothing fresh is known does `/readyz` send one cheap request (`GET /models`),
 * at most once per `maxAgeMs` however often it is asked.
 */
import { kindOfError } from '../session/failure.ts';
import type { SessionEvent } from '../session/events.ts';

/** Defaults of the service probe behind `/readyz` (`CreateAgentServerOptions.serviceProbe`). */
export const SERVICE_PROBE_DEFAULTS = {
  /** How long what is known (a probe's answer, a call's sockets) stands before `/readyz` asks again. */
  maxAgeMs: 15_000,
  /** How long the probe waits for an answer before it counts the service as unreachable. */
  timeoutMs: 3_000,
} as const;

/** The service probe's settings, each defaulting to `SERVICE_PROBE_DEFAULTS`'s. */
export type ServiceProbeOptions = { [K in keyof typeof SERVICE_PROBE_DEFAULTS]?: number };

/**
 * What is known of the service: `reachable` (it answered, or a call's sockets opened),
 * `unreachable` (no connection, no answer in time, a server error), `refused` (the key or its
 * wallet: every call would fail the same way).
 */
export interface ServiceStatus {
  status: 'reachable' | 'unreachable' | 'refused';
  /** How it was learned: the probe, or a call's session. */
  via: 'probe' | 'call';
  /** When, as an ISO time. */
  checkedAt: string;
  /** What failed, in a clean sentence (never the key). */
  detail?: string;
}

/** The status of a service met through an error (the probe's request). */
function statusOfError(err: unknown, timeoutMs: number): Pick<ServiceStatus, 'status' | 'detail'> {
  const kind = kindOfError(err, 'stt');
  const http = (err as { status?: number })?.status;
  const code = typeof http === 'number' ? ` (HTTP ${http})` : '';
  if (kind === 'timeout') return { status: 'unreachable', detail: `the voice service did not answer in ${timeoutMs} ms` };
  if (kind === 'network') return { status: 'unreachable', detail: http ? `the voice service answered with a server error${code}` : 'the voice service could not be reached' };
  if (kind === 'auth') return { status: 'refused', detail: `the voice service refused the API key${code}` };
  if (kind === 'balance') return { status: 'refused', detail: `the voice service's wallet is empty${code}` };
  // Any other answer (a 404 from a proxy, a body it did not expect): the service is there.
  return { status: 'reachable' };
}

export class ServiceReachability {
  private readonly maxAgeMs: number;
  private readonly timeoutMs: number;
  private known: (ServiceStatus & { at: number }) | undefined;
  private probing: Promise<ServiceStatus> | undefined;

  /** `probe` asks the service something cheap and rejects as the service client does. */
  constructor(
    private readonly probe: (o: { timeoutMs: number; maxRetries: number }) => Promise<unknown>,
    opts: ServiceProbeOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.maxAgeMs = opts.maxAgeMs ?? SERVICE_PROBE_DEFAULTS.maxAgeMs;
    this.timeoutMs = opts.timeoutMs ?? SERVICE_PROBE_DEFAULTS.timeoutMs;
  }

  /** A call's session event: its sockets opened, or failed for good for a reason every call would meet. */
  observe(e: SessionEvent): void {
    if (e.type === 'state' && e.state === 'listening') this.learn({ status: 'reachable', via: 'call' });
    else if (e.type === 'error' && e.fatal && (e.source === 'stt' || e.source === 'tts')) {
      if (e.kind === 'network' || e.kind === 'timeout') this.learn({ status: 'unreachable', via: 'call', detail: e.message });
      else if (e.kind === 'auth' || e.kind === 'balance') this.learn({ status: 'refused', via: 'call', detail: e.message });
    }
  }

  /** What is known, asking the service first when nothing fresh is (one request at a time). */
  async status(): Promise<ServiceStatus> {
    const known = this.known;
    if (known && this.now() - known.at < this.maxAgeMs) return publicStatus(known);
    this.probing ??= this.probe({ timeoutMs: this.timeoutMs, maxRetries: 0 })
      .then(
        () => this.learn({ status: 'reachable', via: 'probe' }),
        (err: unknown) => this.learn({ ...statusOfError(err, this.timeoutMs), via: 'probe' }),
      )
      .finally(() => (this.probing = undefined));
    return this.probing;
  }

  private learn(s: Omit<ServiceStatus, 'checkedAt'>): ServiceStatus {
    const at = this.now();
    this.known = { ...s, checkedAt: new Date(at).toISOString(), at };
    return publicStatus(this.known);
  }
}

const publicStatus = ({ at: _at, ...s }: ServiceStatus & { at: number }): ServiceStatus => s;
