import type { SandboxOptions } from '../sandbox/index.ts';
import { ServiceClient } from '../service/client.ts';
import type { Agent } from '../session/agent.ts';
import type { Logger } from '../session/logger.ts';
import { sandboxPhrasebook } from '../session/agent-phrases.ts';

/** The voice service of `createAgentServer`'s sessions, and how to let it go. */
export interface Service {
  client: ServiceClient;
  /** The embedded sandbox's URL, when it runs. */
  url?: string;
  /**
   * The embedded sandbox only: teaches its recognizer the phrases of an agent chosen for a call
   * (`agentPhrases`) that it does not know yet, and resolves once it knows them all.
   */
  teach?(agent: Agent, callId: string): Promise<void>;
  close(): Promise<void>;
}

/** `createAgentServer`'s embedded sandbox: what its recognizer is taught besides the agents' phrases, and where its voiced lines are kept. */
export interface ServerSandboxOptions extends Pick<SandboxOptions, 'phrasebook'> {
  /**
   * Where the lines it voices (the phrases it is taught, the agents' lines) are kept for the next
   * start, which then takes seconds instead of a minute: a directory, or `false` for memory only.
   * The render cache is the process's (`RENDER_CACHE_DEFAULTS.dir`).
   * @default as `hiwar serve`: HIWAR_SANDBOX_RENDER_CACHE (`off`: none), else `voiced-lines` in hiwar's cache (`$HIWAR_CACHE`, `$XDG_CACHE_HOME/hiwar`, `~/.cache/hiwar`)
   */
  voicedLines?: string | false;
}

/** What of `createAgentServer`'s options shapes its service. */
export interface ServiceChoice {
  client?: ServiceClient;
  /** The default agent: the embedded sandbox starts knowing its phrases. */
  agent?: Agent;
  sandbox?: ServerSandboxOptions | false;
  /** With `client`: how its sandbox learns an agent's phrases, when it is one (`sandboxTeacher`). */
  teachSandbox?: Service['teach'];
}

/**
 * The given client, a client from HIWAR_API_KEY, or the embedded sandbox with room for the
 * server's calls, taught what `hiwar serve` teaches its own: the agent's phrases and the phrasebook.
 */
export async function serviceOf(o: ServiceChoice, sandboxSessions: number, logger: Logger): Promise<Service> {
  if (o.client) return { client: o.client, ...(o.teachSandbox ? { teach: o.teachSandbox } : {}), close: async () => {} };
  if (process.env.HIWAR_API_KEY) return { client: new ServiceClient(), close: async () => {} };
  if (o.sandbox === false) throw new Error('createAgentServer: no `client` and no HIWAR_API_KEY, and `sandbox: false` forbids the embedded sandbox');
  // Loaded only here: a server on the real service never needs the sandbox's modules.
  const [{ startSandbox }, { generateKey }, { builtInVoices }, { sandboxTeacher, voicing }, { serverVoicedLines }] = await Promise.all([
    import('../sandbox/index.ts'),
    import('../sandbox/keys.ts'),
    import('../sandbox/catalogue.ts'),
    import('./sandbox-teacher.ts'),
    import('../sandbox/voiced-lines.ts'),
  ]);
  // On disk as `hiwar serve`'s: a restart voiced every phrase again (a minute on a busy machine).
  await serverVoicedLines(o.sandbox?.voicedLines);
  const phrasebook = sandboxPhrasebook(o.agent, o.sandbox?.phrasebook ?? []);
  if (phrasebook.length) logger.warn(`no HIWAR_API_KEY: starting the embedded sandbox, ${voicing(phrasebook.length, builtInVoices(''))}`);
  // warmUp: the server is there to take calls; the first must not load the VAD model mid-greeting.
  const sandbox = await startSandbox({ port: 0, keys: [{ key: generateKey(), credits: 100_000_000, concurrency: sandboxSessions }], phrasebook, warmUp: true });
  const teach = sandboxTeacher(sandbox, phrasebook, logger);
  return { client: new ServiceClient({ apiKey: sandbox.keys[0]!.key, baseUrl: sandbox.url }), url: sandbox.url, teach, close: sandbox.close };
}
