import type { SandboxOptions } from '../sandbox/index.ts';
import { ServiceClient } from '../service/client.ts';
import type { ServiceConfigInput } from '../service/config.ts';

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
): Promise<{ client: ServiceClient; close: () => Promise<void>; sandbox: boolean }> {
  if (process.env.HIWAR_API_KEY) return { client: new ServiceClient(config), close: async () => {}, sandbox: false };
  const { startSandbox } = await import('../sandbox/index.ts');
  const taught = sandboxOptions.phrasebook?.length ?? 0;
  if (taught) log(`no HIWAR_API_KEY: starting the embedded sandbox and teaching its recognizer ${taught} phrases…`);
  const sandbox = await startSandbox({ port: 0, ...sandboxOptions });
  log(`no HIWAR_API_KEY: using the embedded sandbox at ${sandbox.url} (it recognizes only phrases it voiced or was given)`);
  return { client: new ServiceClient({ ...config, apiKey: sandbox.keys[0]!.key, baseUrl: sandbox.url }), close: sandbox.close, sandbox: true };
}
