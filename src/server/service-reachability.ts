/**
 * Whether the voice service and the model can be reached, for `/readyz`. An instance whose
 * service key is refused or whose service URL points nowhere (the embedded sandbox stopped, a
 * wrong `HIWAR_BASE_URL`) can only apologise to every caller. What the calls' sessions met (their
 * sockets opened, or failed for good) counts as a check of the service; only when nothing fresh is
 * known does `/readyz` send one cheap request (`GET /models`, of the service or of the model's
 * server), at most once per `maxAgeMs` however often it is asked.
 *
 * Which answers make `/readyz` 503 is each probe's `notReadyOn`: a refused key is every
 * instance's (they share it), so taking this one out of the balancer sends its callers to the
 * platform's error tone instead of the agent's out-of-service line (docs/scaling.md).
 */
import { AuthenticationError, InsufficientBalanceError, PermissionDeniedError } from '../service/errors.ts';
import { LISTEN_ENDPOINT } from '../service/ws/listen-probe.ts';
import { kindOfError } from '../session/failure.ts';
import type { FailureSource } from '../session/failure.ts';
import type { SessionEvent } from '../session/events.ts';

/** What is known of a dependency that can fail readiness. */
export type ReachabilityState = 'unreachable' | 'refused';

/** Defaults of the service probe behind `/readyz` (`CreateAgentServerOptions.serviceProbe`). */
export const SERVICE_PROBE_DEFAULTS = {
  /** How long what is known (a probe's answer, a call's sockets) stands before `/readyz` asks again. */
  maxAgeMs: 15_000,
  /** How long the probe waits for an answer before it counts the service as unreachable. */
  timeoutMs: 3_000,
  /**
   * What makes `/readyz` 503: `unreachable` (no connection, no answer in time, a server error:
   * often this instance's own, another may do better). A `refused` key or wallet is every
   * instance's: `/readyz` stays 200 (`status: "degraded"`) and each caller hears the agent's
   * out-of-service line; `['unreachable', 'refused']` takes the instance out for both.
   */
  notReadyOn: ['unreachable'] as readonly ReachabilityState[],
};

/**
 * Defaults of the model probe behind `/readyz` (`CreateAgentServerOptions.modelProbe`): asked of
 * a model that can be probed (`Llm.probe`: `OpenAiLlm`'s `GET {baseURL}/models`), said in the
 * body's `model`, and by default never a 503: a model's outage is every instance's, and a call
 * with its model down still greets and says the agent's `modelErrorLine` (docs/scaling.md).
 */
export const MODEL_PROBE_DEFAULTS = {
  /** How long a probe's answer stands before `/readyz` asks the model's server again. */
  maxAgeMs: 15_000,
  /** How long the probe waits for an answer before it counts the model as unreachable. */
  timeoutMs: 3_000,
  /** What makes `/readyz` 503 (`['unreachable']`, or both): nothing, by default. */
  notReadyOn: [] as readonly ReachabilityState[],
  /**
   * Model endpoints probed at most (src/server/model-probes.ts): one an `agentFor` call brings
   * beyond it is not probed (a model made per call with a key of its own each time). Not an option.
   */
  maxEndpoints: 16,
};

/** The settings of one probe behind `/readyz`. */
interface ProbeOptions {
  /** How long what is known stands before `/readyz` asks again (ms). */
  maxAgeMs?: number;
  /** How long the probe waits for an answer before it counts the dependency as unreachable (ms). */
  timeoutMs?: number;
  /** The states that make `/readyz` 503 (`[]`: never); the others are said in its body (`degraded`). */
  notReadyOn?: readonly ReachabilityState[];
}

/** The voice service's probe (`CreateAgentServerOptions.serviceProbe`), each setting defaulting to `SERVICE_PROBE_DEFAULTS`'. */
export interface ServiceProbeOptions extends ProbeOptions {}

/**
 * The model's probe (`CreateAgentServerOptions.modelProbe`), each setting defaulting to
 * `MODEL_PROBE_DEFAULTS`' (never a 503 unless `notReadyOn` says so). One probe per model endpoint
 * the server knows of (src/server/model-probes.ts).
 */
export interface ModelProbeOptions extends ProbeOptions {}

/**
 * What is known of the service (or the model): `reachable` (it answered, or a call's sockets
 * opened), `unreachable` (no connection, no answer in time, a server error), `refused` (the key or
 * its wallet: every call would fail the same way).
 */
export interface ServiceStatus {
  status: 'reachable' | ReachabilityState;
  /** How it was learned: the probe, or a call's session. */
  via: 'probe' | 'call';
  /** When, as an ISO time. */
  checkedAt: string;
  /** What failed, in a clean sentence (never the key). */
  detail?: string;
}

/** The status of a dependency met through an error (the probe's request); `what` names it. */
function statusOfError(err: unknown, timeoutMs: number, what: string, source: FailureSource): Pick<ServiceStatus, 'status' | 'detail'> {
  const kind = kindOfError(err, source);
  const http = (err as { status?: number })?.status;
  const code = typeof http === 'number' ? ` (HTTP ${http})` : '';
  if (kind === 'timeout') return { status: 'unreachable', detail: `${what} did not answer in ${timeoutMs} ms` };
  if (kind === 'network') return { status: 'unreachable', detail: http ? `${what} answered with a server error${code}` : `${what} could not be reached` };
  // The voice service documents 401 and 429 for GET /models: its 403 is a key scoped to other
  // endpoints (text-to-speech and /listen, say), a valid key that calls may well use.
  // A 403 on /listen (its probe, or a call's socket) is a key that calls cannot use: refused.
  if (err instanceof PermissionDeniedError) return err.endpoint === LISTEN_ENDPOINT ? { status: 'refused', detail: `${what} refused the API key for live recognition (/listen, HTTP ${err.status}: ${err.errorMessage})` } : { status: 'reachable' };
  if (kind === 'auth') return { status: 'refused', detail: `${what} refused the API key${code}` };
  if (kind === 'balance') return { status: 'refused', detail: `${what}'s wallet is empty${code}` };
  // Any other answer (a 404 from a proxy, a 429, a body it did not expect): the server is there.
  return { status: 'reachable' };
}

type Probe = (o: { timeoutMs: number; maxRetries: number }) => Promise<unknown>;

/** A cached, one-at-a-time probe of one dependency. */
export class Reachability {
  /** The states that make `/readyz` 503. */
  readonly notReadyOn: readonly ReachabilityState[];
  private readonly maxAgeMs: number;
  private readonly timeoutMs: number;
  private known: (ServiceStatus & { at: number }) | undefined;
  private probing: Promise<ServiceStatus> | undefined;

  /** `probe` asks something cheap and rejects as the dependency's client does; `what` names it in details. */
  constructor(
    private readonly probe: Probe,
    opts: ProbeOptions,
    defaults: Required<ProbeOptions>,
    private readonly what: { name: string; source: FailureSource },
    private readonly now: () => number = Date.now,
  ) {
    this.maxAgeMs = opts.maxAgeMs ?? defaults.maxAgeMs;
    this.timeoutMs = opts.timeoutMs ?? defaults.timeoutMs;
    this.notReadyOn = opts.notReadyOn ?? defaults.notReadyOn;
  }

  /** What is known, asking first when nothing fresh is (one request at a time). */
  async status(): Promise<ServiceStatus> {
    const known = this.known;
    if (known && this.now() - known.at < this.maxAgeMs) return publicStatus(known);
    this.probing ??= this.ask({ timeoutMs: this.timeoutMs, maxRetries: 0 })
      .then(
        () => this.learn({ status: 'reachable', via: 'probe' }),
        (err: unknown) => this.learn({ ...statusOfError(err, this.timeoutMs, this.what.name, this.what.source), via: 'probe' }),
      )
      .finally(() => (this.probing = undefined));
    return this.probing;
  }

  /** One probe: resolves when the dependency answered, rejects as its client does. */
  protected ask(o: { timeoutMs: number; maxRetries: number }): Promise<unknown> {
    return this.probe(o);
  }

  protected learn(s: Omit<ServiceStatus, 'checkedAt'>): ServiceStatus {
    const at = this.now();
    this.known = { ...s, checkedAt: new Date(at).toISOString(), at };
    return publicStatus(this.known);
  }
}

/**
 * The voice service's: its probe is `GET /models`, and the calls' sessions count as checks. With
 * `listen` (`ServiceClient.probeListen`: `/listen` opened and closed without audio), the probe
 * also asks whether the key may open the recognition socket, which `GET /models` cannot tell (a
 * key restricted to text-to-speech answers it): until a probe or a call has found `/listen`
 * open, and again after a call's `/listen` was refused, so a key's access is probed once in the
 * normal case, not every `maxAgeMs`. Only a refusal there counts; a `/listen` that could not be
 * asked (out of reach, the key's sessions all in use) leaves the status to `GET /models`.
 */
export class ServiceReachability extends Reachability {
  /** What is known of the key's access to /listen. */
  private listenAccess: 'unknown' | 'open' | 'refused' = 'unknown';

  constructor(
    probe: Probe,
    opts: ServiceProbeOptions = {},
    now: () => number = Date.now,
    private readonly listen?: (o: { timeoutMs: number }) => Promise<unknown>,
  ) {
    super(probe, opts, SERVICE_PROBE_DEFAULTS, { name: 'the voice service', source: 'stt' }, now);
  }

  protected override async ask(o: { timeoutMs: number; maxRetries: number }): Promise<unknown> {
    let scoped: PermissionDeniedError | undefined;
    try {
      await super.ask(o);
    } catch (err) {
      // A key scoped away from GET /models may still be one calls use: /listen says.
      if (!(err instanceof PermissionDeniedError)) throw err;
      scoped = err;
    }
    if (this.listen && this.listenAccess !== 'open') {
      try {
        await this.listen({ timeoutMs: o.timeoutMs });
        this.listenAccess = 'open';
      } catch (err) {
        if (isRefusal(err)) throw (this.listenAccess = 'refused', err);
      }
    }
    if (scoped) throw scoped;
    return undefined;
  }

  /** A call's session event: its sockets opened, or failed for good for a reason every call would meet. */
  observe(e: SessionEvent): void {
    if (e.type === 'state' && e.state === 'listening') {
      this.listenAccess = 'open';
      this.learn({ status: 'reachable', via: 'call' });
    } else if (e.type === 'error' && e.fatal && (e.source === 'stt' || e.source === 'tts')) {
      if (e.kind === 'network' || e.kind === 'timeout') this.learn({ status: 'unreachable', via: 'call', detail: e.message });
      else if (e.kind === 'auth' || e.kind === 'balance') {
        // Probed again from now on until it opens: a key given access to /listen is seen by the next probe.
        if (e.source === 'stt') this.listenAccess = 'refused';
        this.learn({ status: 'refused', via: 'call', detail: e.message });
      }
    }
  }
}

/** A /listen refusal that every call would meet: the key, its access or its wallet. */
const isRefusal = (err: unknown): boolean => err instanceof AuthenticationError || err instanceof PermissionDeniedError || err instanceof InsufficientBalanceError;

/**
 * One model endpoint's: its probe only (`Llm.probe`). A call's model failure is not taken as a
 * check: it does not say which endpoint failed, or whether it was the endpoint or the request.
 */
export class ModelReachability extends Reachability {
  constructor(probe: Probe, opts: ModelProbeOptions = {}, now: () => number = Date.now) {
    super(probe, opts, MODEL_PROBE_DEFAULTS, { name: 'the model', source: 'llm' }, now);
  }
}

const publicStatus = ({ at: _at, ...s }: ServiceStatus & { at: number }): ServiceStatus => s;
