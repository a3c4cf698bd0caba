import type { SandboxOptions } from '../sandbox/index.ts';
import { ServiceClient } from '../service/client.ts';
import type { Agent } from '../session/agent.ts';
import type { Logger } from '../session/logger.ts';
import { agentPhrases, sandboxPhrasebook } from '../testing/phrases.ts';
import { voicingLine } from '../testing/progress.ts';

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

/** What of `createAgentServer`'s options shapes its service. */
export interface ServiceChoice {
  client?: ServiceClient;
  /** The default agent: the embedded sandbox starts knowing its phrases. */
  agent?: Agent;
  sandbox?: Pick<SandboxOptions, 'phrasebook'> | false;
}

/**
 * The given client, a client from HIWAR_API_KEY, or the embedded sandbox with room for the
 * server's calls, taught what `hiwar serve` teaches its own: the agent's phrases and the phrasebook.
 */
export async function serviceOf(o: ServiceChoice, sandboxSessions: number, logger: Logger): Promise<Service> {
  if (o.client) return { client: o.client, close: async () => {} };
  if (process.env.HIWAR_API_KEY) return { client: new ServiceClient(), close: async () => {} };
  if (o.sandbox === false) throw new Error('createAgentServer: no `client` and no HIWAR_API_KEY, and `sandbox: false` forbids the embedded sandbox');
  // Loaded only here: a server on the real service never needs the sandbox's modules.
  const [{ startSandbox }, { generateKey }, { builtInVoices }, { RENDER_CACHE_DEFAULTS }] = await Promise.all([
    import('../sandbox/index.ts'),
    import('../sandbox/keys.ts'),
    import('../sandbox/catalogue.ts'),
    import('../sandbox/engines/render-cache.ts'),
  ]);
  // Taught in every voice of the catalogue, as the service hears anyone: a caller is a person.
  const voices = builtInVoices('').filter((v) => v.record.type === 'premade').map((v) => v.record.voice_id);
  // Warnings, the default level's: voicing holds up the start, or a call, for seconds a phrase
  // on a busy machine, and without a line the server looked hung.
  const voicing = (count: number) => voicingLine(count, voices, RENDER_CACHE_DEFAULTS.dir);
  const phrasebook = sandboxPhrasebook(o.agent, o.sandbox?.phrasebook ?? []);
  if (phrasebook.length) logger.warn(`no HIWAR_API_KEY: starting the embedded sandbox, ${voicing(phrasebook.length)}`);
  // warmUp: the server is there to take calls; the first must not load the VAD model mid-greeting.
  const sandbox = await startSandbox({ port: 0, keys: [{ key: generateKey(), credits: 100_000_000, concurrency: sandboxSessions }], phrasebook, warmUp: true });

  // Each phrase's voicing, by phrase: one voicing per phrase, however many calls wait on it.
  const learning = new Map<string, Promise<void>>(phrasebook.map((p) => [p, Promise.resolve()]));
  // One phrase at a time, as at the start: voicing is CPU the running calls need too.
  let queue = Promise.resolve();
  const teach = async (agent: Agent, callId: string) => {
    const phrases = agentPhrases(agent);
    const fresh = phrases.filter((p) => !learning.has(p));
    if (fresh.length) logger.warn({ call: callId, agent: agent.name }, `agent "${agent.name}" chosen for a call: ${voicing(fresh.length)}`);
    for (const phrase of fresh) {
      // After the phrase before, whether or not it was learnt.
      queue = queue.catch(() => {}).then(() => sandbox.state.learnPhrase(phrase));
      learning.set(
        phrase,
        queue.catch((err: Error) => {
          // Tried again by the next call that needs it; this call goes on without hearing it.
          learning.delete(phrase);
          logger.warn({ call: callId, agent: agent.name, err: err.message }, 'the embedded sandbox could not learn one of the agent\'s phrases; the call goes on without it');
        }),
      );
    }
    await Promise.all(phrases.map((p) => learning.get(p)));
  };
  return { client: new ServiceClient({ apiKey: sandbox.keys[0]!.key, baseUrl: sandbox.url }), url: sandbox.url, teach, close: sandbox.close };
}
