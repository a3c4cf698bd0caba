import { CLUSTER_DEFAULTS } from '../cluster/options.ts';
import { connectOrExplain, connectRedis, redisAddress } from '../cluster/redis.ts';
import { InstanceRegistry, type InstanceRecord } from '../cluster/registry.ts';
import { CliError, parseCommand } from './args.ts';

export const STATUS_USAGE = `Usage: hiwar status [--json]

Lists the instances of a cluster of \`hiwar serve\` (REDIS_URL): each one's address, calls,
callers waiting, event-loop delay and state, and the service key's sessions in use.

Options:
  --json      the instances' records as JSON
  -h, --help  this text
`;

/** `hiwar status`: the cluster as its Redis knows it. */
export async function statusCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, { json: { type: 'boolean' } }, STATUS_USAGE);
  if (!values) return 0;
  const url = process.env.REDIS_URL;
  if (!url) throw new CliError('REDIS_URL is not set: hiwar status reads the cluster from the Redis its servers share');
  const redis = connectRedis(url);
  // A failed connection is reported once, below, from connect()'s rejection.
  redis.on('error', () => {});
  let instances: InstanceRecord[];
  try {
    await connectOrExplain(redis);
    instances = await new InstanceRegistry(redis, process.env.HIWAR_REDIS_PREFIX ?? CLUSTER_DEFAULTS.prefix).list();
  } catch (err) {
    throw new CliError(`cannot read the cluster from ${redisAddress(url)}: ${(err as Error).message}`);
  } finally {
    redis.disconnect();
  }
  const out = (s: string) => process.stdout.write(`${s}\n`);
  if (values.json) {
    out(JSON.stringify({ instances }, null, 2));
    return 0;
  }
  out(formatStatus(instances));
  return 0;
}

/** The table `hiwar status` prints. */
export function formatStatus(instances: InstanceRecord[]): string {
  if (instances.length === 0) return 'no instances (none has published within its TTL)';
  const rows = [['INSTANCE', 'ADDRESS', 'CALLS', 'WAITING', 'SESSIONS', 'LOOP DELAY', 'STATE']];
  for (const i of instances) rows.push([i.id, i.address, `${i.calls}/${i.maxCalls}`, String(i.waiting), String(i.slots.held), `${i.loopDelayMs} ms`, i.draining ? 'draining' : 'serving']);
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const lines = rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd());
  // Instances sharing a key report the same budget; the freshest record says it best.
  const byKey = new Map<string, InstanceRecord>();
  for (const i of instances) {
    const seen = byKey.get(i.slots.key);
    if (!seen || seen.updatedAt < i.updatedAt) byKey.set(i.slots.key, i);
  }
  lines.push('');
  for (const [key, i] of byKey) lines.push(`key ${key}: ${i.slots.used}/${i.slots.limit} sessions in use`);
  return lines.join('\n');
}
