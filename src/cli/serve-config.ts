import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import type { CreateAgentServerOptions } from '../server/create.ts';
import { serverOptionProblem } from '../server/option-checks.ts';
import { CliError } from './args.ts';
import { firstLine } from './explain.ts';
import { importUserModule } from './user-module.ts';
import { docPath } from '../docs-path.ts';

/**
 * Keys a config module may hold: every option of `createAgentServer` (see docs/server.md). A
 * record over the interface's keys, so an option added there and not here fails the type check:
 * a hand-kept list had fallen behind and refused `limits` (which docs/security.md says a config
 * may set), `ledger`, `metricsText` and `teachSandbox`.
 */
const OPTION_KEYS: Record<keyof CreateAgentServerOptions, true> = {
  agent: true, agentFor: true, client: true, sandbox: true, teachSandbox: true, plugins: true, providerHooks: true,
  open: true, mediaToken: true, tokens: true, ledger: true, port: true, host: true, publicUrl: true, maxCalls: true,
  metrics: true, metricsText: true, metricsToken: true, probes: true, logger: true, llm: true, fallbackLlm: true, clock: true,
  onCallEnded: true, admission: true, health: true, deferReady: true, serviceProbe: true, modelProbe: true, limits: true,
  wrapSessions: true, onTransportEnded: true,
};
const KNOWN = new Set(Object.keys(OPTION_KEYS));

/**
 * `hiwar serve --config FILE`: the module's default export (an object of `createAgentServer`'s
 * options, or a function returning one). It is loaded as an agent module is (user-module.ts),
 * the same from the sources and compiled.
 */
export async function loadServeConfig(path: string): Promise<CreateAgentServerOptions> {
  const file = resolve(path);
  if (!existsSync(file)) throw new CliError(`--config: no file at ${path}`);
  const ext = extname(file);
  if (!['.ts', '.mts', '.js', '.mjs'].includes(ext)) {
    // A JSON file cannot hold an agent's tools or hooks: say what to write instead.
    const json = ext === '.json' ? `: write its options as a module, hiwar.config.mjs with \`export default { … }\` (see ${docPath('docs/server.md')})` : '';
    throw new CliError(`--config: ${path} is not a .ts or .js module${json}`);
  }
  let config: unknown;
  try {
    config = (await importUserModule(file, 'config')).default;
  } catch (err) {
    throw new CliError(`--config: ${(err as Error).message}`);
  }
  if (typeof config === 'function') {
    try {
      config = await (config as () => unknown)();
    } catch (err) {
      // Said with the file: `hiwar serve: DB down` named neither the config nor its function.
      throw new CliError(`--config: ${path}: its default export (a function) failed: ${firstLine(err)}`);
    }
  }
  if (!config || typeof config !== 'object' || Array.isArray(config)) {
    throw new CliError(`--config: ${path} must default-export an object of the server's options (see ${docPath('docs/server.md')})`);
  }
  const unknown = Object.keys(config).filter((k) => !KNOWN.has(k));
  if (unknown.length) throw new CliError(`--config: ${path} has options the server does not know: ${unknown.join(', ')}${recordingHint(unknown)} (see ${docPath('docs/server.md')})`);
  // Checked here, naming the file: a `maxCalls: -1` reached the embedded sandbox first, which said
  // `sandbox key 0.concurrency: expected a whole number above 0`.
  const problem = serverOptionProblem(config);
  if (problem) throw new CliError(`--config: ${path}: ${problem}`);
  const hooksProblem = await providerHooksProblem(config as CreateAgentServerOptions);
  if (hooksProblem) throw new CliError(`--config: ${path}: ${hooksProblem}`);
  return config as CreateAgentServerOptions;
}

/**
 * A config has no analytics options: recording calls is the operator's decision, made on the
 * command line (or by the environment). Said where someone looked for them in the config.
 */
function recordingHint(unknown: string[]): string {
  if (!unknown.some((k) => /^(analytics|recordings?(Dir)?)$/i.test(k))) return '';
  return '; analytics and its recordings are turned on with --analytics and --recordings DIR (or HIWAR_ANALYTICS_WEBHOOK_URL and HIWAR_RECORDINGS_DIR), not in the config';
}

/**
 * `providerHooks` under a name no platform of `hiwar serve` has (`twilo`): its transfer never ran,
 * without a word. A config with plugins of its own may serve platforms of other names: left alone.
 */
async function providerHooksProblem(config: CreateAgentServerOptions): Promise<string | undefined> {
  if (!config.providerHooks || config.plugins?.length) return undefined;
  const names = (await import('../../transports/telephony/index.ts')).providers.map((p) => p.name);
  const unknown = Object.keys(config.providerHooks).find((name) => !names.includes(name));
  if (unknown === undefined) return undefined;
  const audiosocket = unknown === 'audiosocket' ? ' (AudioSocket calls use the asterisk hooks)' : '';
  return `providerHooks.${unknown} is no platform of hiwar serve${audiosocket}: ${names.join(', ')}`;
}
