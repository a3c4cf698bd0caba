import assert from 'node:assert/strict';
import type { Inbound } from '../../transports/telephony/provider.ts';

export type StartItem = Extract<Inbound, { type: 'start' }>;

/** The `start` item among parsed items (fails the test when there is none). */
export function startOf(items: Inbound[]): StartItem {
  const s = items.find((i): i is StartItem => i.type === 'start');
  assert.ok(s, `no start item in ${JSON.stringify(items.map((i) => i.type))}`);
  return s;
}
