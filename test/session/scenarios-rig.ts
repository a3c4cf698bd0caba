// The whole-call scenarios of the call-centre agent (test/session/scenarios*.test.ts) share this
// rig: one sandbox per file with a rich key and a poor one. The two false alarms, on a real-time
// clock, are a file of their own so that the heavy lane runs them beside the rest (docs/testing.md,
// "Figures: the longest file split"); each file starts its own sandbox, as the one file did.
import { after, before } from 'node:test';
import { ServiceClient } from '../../src/service/index.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

/** This file's sandbox, from its `before` to its `after` (useScenarioSandbox). */
export let sb: Running;

/** Starts this file's sandbox before its tests and closes it after them. */
export function useScenarioSandbox(): void {
  before(async () => {
    sb = await runSandbox({
      keys: [
        { key: 'sk-calls-main-001', credits: 1e9, concurrency: 32 },
        { key: 'sk-calls-poor-001', credits: 260, concurrency: 8 },
      ],
    });
  });
  after(() => sb?.close());
}

/** A client of the rich key. */
export const client = () => new ServiceClient({ apiKey: 'sk-calls-main-001', baseUrl: sb.sandbox.url, maxRetries: 0 });
