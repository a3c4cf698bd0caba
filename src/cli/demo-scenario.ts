import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadScenario, parseScenario, type Scenario } from '../testing/scenario.ts';
import { scenarioFromIntents } from '../testing/phrases.ts';
import type { LoadedAgent } from './agent.ts';
import { CliError } from './args.ts';

/** The call-centre agent's own scenario, for `hiwar demo` without --agent. */
const BUILT_IN = new URL('../../agents/call-centre/scenario.json', import.meta.url).pathname;

/**
 * The script `hiwar demo` plays: `--scenario FILE`; else the built-in agent's; else the
 * scenario.json beside the user's agent; else one line for each of its intents. `source` says
 * which, for the opening line and report.json.
 */
export async function demoScenario(loaded: LoadedAgent, file: string | undefined): Promise<{ scenario: Scenario; source: string }> {
  if (file !== undefined) return { scenario: await loadScenario(file), source: file };
  if (!loaded.file) return { scenario: await loadScenario(BUILT_IN), source: 'agents/call-centre/scenario.json' };
  const beside = join(loaded.dir!, 'scenario.json');
  if (existsSync(beside)) return { scenario: await loadScenario(beside), source: beside };
  const made = scenarioFromIntents(loaded.agent);
  if (!made) throw new CliError(`agent ${loaded.agent.name} has no intent examples to make a call from: give one with --scenario FILE`);
  return { scenario: parseScenario(made), source: made.description! };
}
