import type { Sandbox, SandboxOptions } from '../sandbox/index.ts';
import type { Agent } from '../session/agent.ts';
import { ServiceClient } from '../service/client.ts';
import type { ServiceConfigInput } from '../service/config.ts';
import { AuthenticationError, InsufficientBalanceError, PermissionDeniedError, ServiceError } from '../service/errors.ts';
import { regionHint } from './explain.ts';
import { sandboxPhrases } from './agent.ts';
import { keepVoicedLines } from '../sandbox/voiced-lines.ts';

/**
 * The real service when HIWAR_API_KEY is set, otherwise a sandbox started in this process.
 * `config` adds client options (model ids) on top of the environment; `sandboxOptions` shape the
 * embedded sandbox (keys with room for a server's calls, a phrasebook of phrases its closed-set
 * recognizer should know besides what it voices).
 */
export async function connectService(
  log: (m: string) => void,
  config: Pick<ServiceConfigInput, 'modelIds' | 'models'> = {},
  sandboxOptions: SandboxOptions = {},
): Promise<{ client: ServiceClient; close: () => Promise<void>; sandbox: boolean; embedded?: Sandbox }> {
  if (process.env.HIWAR_API_KEY) return { client: new ServiceClient(config), close: async () => {}, sandbox: false };
  const { startSandbox } = await import('../sandbox/index.ts');
  await teaching(sandboxOptions.phrasebook?.length ?? 0, log);
  const sandbox = await startSandbox({ port: 0, warmUp: true, ...sandboxOptions });
  log(`no HIWAR_API_KEY: using the embedded sandbox at ${sandbox.url} (it recognizes only phrases it voiced or was given)`);
  return { client: new ServiceClient({ ...config, apiKey: sandbox.keys[0]!.key, baseUrl: sandbox.url }), close: sandbox.close, sandbox: true, embedded: sandbox };
}

/**
 * The embedded sandbox of a command whose server starts its own (`hiwar call`, `hiwar campaign
 * start|worker`), taught what `hiwar serve`'s is: the agent's intent examples and the lines of
 * `--phrasebook`, voiced lines kept on disk for the next start. Undefined with HIWAR_API_KEY (the
 * real service answers). Without it a caller's words that only the agent's intents name were
 * never heard in a placed call, though the same agent heard them served.
 */
export async function taughtSandbox(agent: Agent, phrasebook: string | undefined, log: (m: string) => void): Promise<{ phrasebook: string[] } | undefined> {
  if (process.env.HIWAR_API_KEY) return undefined;
  const phrases = await sandboxPhrases(agent, phrasebook);
  await teaching(phrases.length, log);
  return { phrasebook: phrases };
}

/** Keeps the voiced lines on disk and says what is being taught: voicing is most of a start (a minute on a busy machine), the kept lines make the next one take seconds. */
async function teaching(phrases: number, log: (m: string) => void): Promise<void> {
  const dir = await keepVoicedLines();
  const keep = dir ? ` (voiced lines kept in ${dir} for the next start; HIWAR_SANDBOX_RENDER_CACHE=off keeps none)` : '';
  if (phrases) log(`no HIWAR_API_KEY: starting the embedded sandbox and teaching its recognizer ${phrases} ${phrases === 1 ? 'phrase' : 'phrases'}…${keep}`);
}

/**
 * A real key is tried before a server takes calls: a key the service refuses would otherwise show
 * only as every call failing, with a warning per call. First `GET /models`: a key that is not
 * valid (401) stops the start; anything else (a key scoped away from `/models`, the service out
 * of reach for a moment, an empty wallet) is said. Then `/listen`, opened and closed without audio
 * (`ServiceClient.probeListen`): `GET /models` says nothing of a key restricted to some endpoints,
 * and one that may synthesize but not open `/listen` (or not its model) would greet every caller
 * and then hear nothing. Such a key stops the start too. The messages carry the status and the
 * service's words, never the key.
 */
export async function checkServiceKey(client: ServiceClient, log: (m: string) => void, listen: { model?: string | undefined } = {}): Promise<void> {
  try {
    await client.listModels({ timeoutMs: 10_000, maxRetries: 1 });
  } catch (err) {
    if (err instanceof AuthenticationError) throw new Error(`the service refused HIWAR_API_KEY (${err.status}: not a valid key): check the key (${regionHint()}); nothing was started`);
    // GET /models answers 401 or 429 by the service's word: a 403 is a key scoped to some
    // endpoints (text-to-speech only, say), which says nothing of the ones calls use. Said, by name.
    if (err instanceof PermissionDeniedError) log(`HIWAR_API_KEY is a valid key that may not call ${err.endpoint ?? 'GET /models'} (${err.status}: ${err.errorMessage}); calls need /listen and /text-to-speech: checking /listen`);
    else if (err instanceof InsufficientBalanceError) return log(`the key's wallet is empty (${err.status}): calls will fail until it is topped up`);
    else return log(`could not check HIWAR_API_KEY with the service (${err instanceof ServiceError ? err.status : (err as Error).name}); starting anyway`);
  }
  try {
    await client.probeListen({ ...(listen.model ? { model: listen.model } : {}), timeoutMs: 10_000 });
  } catch (err) {
    const model = listen.model ? ` (model ${listen.model})` : '';
    if (err instanceof PermissionDeniedError) {
      throw new Error(`HIWAR_API_KEY may not open /listen${model} (${err.status}: ${err.errorMessage}): every call needs live recognition, so callers would be greeted and then not heard; allow /listen for the key in the service's dashboard, or use a key that has it; nothing was started`);
    }
    if (err instanceof AuthenticationError) throw new Error(`the service refused HIWAR_API_KEY on /listen (${err.status}: ${err.errorMessage}): check the key (${regionHint()}); nothing was started`);
    if (err instanceof InsufficientBalanceError) return log(`the key's wallet is empty (/listen: ${err.errorMessage}): calls will fail until it is topped up`);
    log(`could not check /listen with HIWAR_API_KEY (${err instanceof ServiceError ? `${err.status}: ${err.errorMessage}` : (err as Error).message}); starting anyway`);
  }
}
