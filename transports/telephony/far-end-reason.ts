/**
 * The reason a gateway or platform is told when hiwar ends a call (the pcm `hangup` message, the
 * WebSocket close reason): one of a few generic words. hiwar's own reason may carry an operator's
 * hint ("set the right one in HIWAR_API_KEY … HIWAR_REGION"), a service's message or the words
 * of the agent's code; those stay in hiwar's log, events and report, never go to the far end.
 */
const FAR_END_REASONS: readonly [RegExp, string][] = [
  [/^out of service\b/, 'out of service'],
  [/^server shutting down\b/, 'server shutting down'],
  [/^transferred\b/, 'transferred'],
  // The cluster's busy line (src/cluster/busy-line.ts): a gateway may route the caller elsewhere on it.
  [/^all lines busy\b/, 'all lines busy'],
  [/^(session failed|transport (error|failed))\b/, 'call failed'],
];

/** The generic reason the far end gets for hiwar's `reason` (`agent hung up` when none fits). */
export function farEndReason(reason: string | undefined): string {
  for (const [pattern, said] of FAR_END_REASONS) if (reason && pattern.test(reason)) return said;
  return 'agent hung up';
}
