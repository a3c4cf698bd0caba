import type { ClusterMember } from '../cluster/cluster.ts';
import type { RenderedLine } from '../cluster/busy-line.ts';
import type { ClusterOptions } from '../cluster/options.ts';
import type { CallAdmission } from '../server/call-admission.ts';
import type { ServiceClient } from '../service/client.ts';
import { collectPcm } from '../service/index.ts';
import type { Agent } from '../session/agent.ts';
import { prepareLines } from '../session/prepare-fixed-lines.ts';
import type { Logger } from '../session/logger.ts';
import { numberOption, UsageError } from './args.ts';

/** `hiwar serve`'s flags for cluster mode (parsed with the rest of serve's options). */
export const CLUSTER_FLAGS = {
  'key-sessions': { type: 'string' },
  'queue-size': { type: 'string' },
  'queue-wait-ms': { type: 'string' },
} as const;

export const CLUSTER_USAGE = `Cluster mode (REDIS_URL set; see docs/scaling.md):
  --key-sessions N       concurrent sessions the service key allows, cluster-wide (or HIWAR_KEY_SESSIONS);
                         each call holds 3 (listen and TTS sockets, and an HTTP synthesis or a reconnect)
  --queue-size N         callers that may wait for a line on this instance (or HIWAR_QUEUE_SIZE; default 10)
  --queue-wait-ms N      longest wait before the busy line (or HIWAR_QUEUE_WAIT_MS; default 20000)
`;

/**
 * The largest timings `hiwar serve` takes for cluster mode, in ms (a usage error above them).
 * A test that scales a timing with the machine's load keeps it within these.
 */
export const CLUSTER_MAX_MS = {
  queueWaitMs: 3_600_000,
  leaseMs: 600_000,
  heartbeatMs: 200_000,
  releaseDelayMs: 60_000,
} as const;

/** The cluster options from flags and the environment; undefined without REDIS_URL. */
export function clusterOptionsOf(
  values: { 'key-sessions'?: string; 'queue-size'?: string; 'queue-wait-ms'?: string },
  usage: string,
  embeddedSandboxSessions: number | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ClusterOptions | undefined {
  const redisUrl = env.REDIS_URL;
  if (!redisUrl) return undefined;
  const num = (flag: string, raw: string | undefined, min: number, max: number) => (raw === undefined ? undefined : numberOption(flag, raw, min, max, usage, true));
  const keySessions = num('key-sessions', values['key-sessions'] ?? env.HIWAR_KEY_SESSIONS, 1, 1_000_000) ?? embeddedSandboxSessions;
  if (keySessions === undefined) {
    throw new UsageError('REDIS_URL is set: give the concurrent sessions your service key allows with --key-sessions N (or HIWAR_KEY_SESSIONS)', usage);
  }
  return {
    redisUrl,
    keySessions,
    queueSize: num('queue-size', values['queue-size'] ?? env.HIWAR_QUEUE_SIZE, 0, 100_000),
    queueWaitMs: num('queue-wait-ms', values['queue-wait-ms'] ?? env.HIWAR_QUEUE_WAIT_MS, 0, CLUSTER_MAX_MS.queueWaitMs),
    // Lease and heartbeat are for operators who know why (and for tests of a dead instance).
    leaseMs: num('HIWAR_CLUSTER_LEASE_MS', env.HIWAR_CLUSTER_LEASE_MS, 100, CLUSTER_MAX_MS.leaseMs),
    heartbeatMs: num('HIWAR_CLUSTER_HEARTBEAT_MS', env.HIWAR_CLUSTER_HEARTBEAT_MS, 10, CLUSTER_MAX_MS.heartbeatMs),
    releaseDelayMs: num('HIWAR_CLUSTER_RELEASE_DELAY_MS', env.HIWAR_CLUSTER_RELEASE_DELAY_MS, 0, CLUSTER_MAX_MS.releaseDelayMs),
    maxLoopDelayMs: num('HIWAR_CLUSTER_MAX_LOOP_DELAY_MS', env.HIWAR_CLUSTER_MAX_LOOP_DELAY_MS, 1, 600_000),
    busyLine: env.HIWAR_BUSY_LINE || undefined,
    waitLine: env.HIWAR_WAIT_LINE === 'off' ? false : env.HIWAR_WAIT_LINE || undefined,
    waitLineEveryMs: num('HIWAR_WAIT_LINE_EVERY_MS', env.HIWAR_WAIT_LINE_EVERY_MS, 0, 3_600_000),
  };
}

/**
 * The server's cluster hooks before the instance has joined (its address is known only once it
 * listens): calls arriving in between wait for the join.
 */
export function lateCluster(): {
  admission: CallAdmission;
  health: () => { ready: boolean; body: Record<string, unknown> };
  rooms: { elsewhere(room: string): Promise<string | undefined>; release(room: string): Promise<void> };
  joined(member: ClusterMember): void;
} {
  let member: ClusterMember | undefined;
  let resolve!: (m: ClusterMember) => void;
  const ready = new Promise<ClusterMember>((r) => (resolve = r));
  return {
    admission: { admit: async (t, hooks, o) => (await ready).admission.admit(t, hooks, o) },
    health: () => member?.health() ?? { ready: false, body: { status: 'starting' } },
    rooms: {
      elsewhere: async (room) => (await ready).rooms.elsewhere(room),
      release: async (room) => (await ready).rooms.release(room),
    },
    joined(m) {
      member = m;
      resolve(m);
    },
  };
}

/**
 * The busy line in the agent's own voice, through the service (16 kHz; outputs resample). The
 * agent's fixed lines are rendered after it, under the same slot of the key (prepareBusyLine).
 */
export function busyLineSynth(client: ServiceClient, agent: Agent, logger: Logger): (text: string) => Promise<RenderedLine> {
  return async (text) => {
    const sampleRate = 16_000;
    const stream = await client.synthesizeStream(agent.voice.model_id ?? client.config.models.tts, { voice_id: agent.voice.voice_id, text, sample_rate: sampleRate });
    const samples = await collectPcm(stream);
    logger.info({ seconds: +(samples.length / sampleRate).toFixed(1) }, 'busy line rendered');
    await prepareLines(client, agent, logger);
    return { samples, sampleRate };
  };
}

