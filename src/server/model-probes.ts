/**
 * `/readyz`'s model probes: one per distinct model endpoint the server knows of. At start that is
 * `llm`, else the agent's, else `fallbackLlm`; with `agentFor`, the model of each agent a call
 * gets joins the list as the call starts (an endpoint seen once is probed from then on). Each
 * endpoint is probed at most every `maxAgeMs`; the body's `model` is the worst of them, and lists
 * each (`endpoints`) once there is more than one.
 */
import type { Llm } from '../llm/types.ts';
import { MODEL_PROBE_DEFAULTS, ModelReachability, type ModelProbeOptions, type ServiceStatus } from './service-reachability.ts';

/** What `/readyz` says of the models: the worst status, and each endpoint's when there are several. */
export type ModelsStatus = ServiceStatus & { endpoints?: (ServiceStatus & { endpoint: string })[] };

const RANK: Record<ServiceStatus['status'], number> = { reachable: 0, unreachable: 1, refused: 2 };

export class ModelProbes {
  private readonly probes = new Map<string, { name: string; reach: ModelReachability }>();
  /** Models already looked at (a per-call model object is looked at once). */
  private readonly seen = new WeakSet<Llm>();
  readonly notReadyOn: ModelReachability['notReadyOn'];

  constructor(
    private readonly opts: ModelProbeOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.notReadyOn = opts.notReadyOn ?? MODEL_PROBE_DEFAULTS.notReadyOn;
  }

  /** How many endpoints are probed. */
  get size(): number {
    return this.probes.size;
  }

  /** Probes `llm`'s endpoint from now on, when it can be probed and is not probed already. */
  add(llm: Llm | undefined): void {
    if (!llm?.probe || this.seen.has(llm)) return;
    this.seen.add(llm);
    const target = llm.probeTarget?.() ?? { name: llm.name, key: `object:${this.probes.size}:${llm.name}` };
    if (this.probes.has(target.key) || this.probes.size >= MODEL_PROBE_DEFAULTS.maxEndpoints) return;
    this.probes.set(target.key, { name: target.name, reach: new ModelReachability(({ timeoutMs }) => llm.probe!({ timeoutMs }), this.opts, this.now) });
  }

  /** The worst of the endpoints' statuses (each asked when nothing fresh is known), with each listed when several; undefined before any is known. */
  async status(): Promise<ModelsStatus | undefined> {
    if (!this.probes.size) return undefined;
    const all = await Promise.all([...this.probes.values()].map(async ({ name, reach }) => ({ endpoint: name, ...(await reach.status()) })));
    const worst = all.reduce((a, b) => (RANK[b.status] > RANK[a.status] ? b : a));
    const { endpoint, ...status } = worst;
    if (all.length === 1) return status;
    return { ...status, ...(worst.detail ? { detail: `${endpoint}: ${worst.detail}` } : {}), endpoints: all };
  }
}
