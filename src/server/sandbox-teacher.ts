import type { SandboxVoice } from '../sandbox/catalogue.ts';
import { RENDER_CACHE_DEFAULTS } from '../sandbox/engines/render-cache.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { Agent } from '../session/agent.ts';
import type { Logger } from '../session/logger.ts';
import { agentPhrases } from '../session/agent-phrases.ts';
import { voicingLine } from '../sandbox/voicing-line.ts';

/**
 * The line said before voicing `count` phrases in the catalogue's voices (`voices`), with where
 * voiced lines are kept now (the CLI points the render cache at its own directory).
 */
export const voicing = (count: number, voices: Iterable<SandboxVoice>): string =>
  voicingLine(count, [...voices].filter((v) => v.record.type === 'premade').map((v) => v.record.voice_id), RENDER_CACHE_DEFAULTS.dir);

/** `sandboxTeacher`'s teacher: teaches an agent's phrases; `known()`, the phrases the sandbox knows now. */
export type SandboxTeacher = ((agent: Agent, callId: string) => Promise<void>) & { known(): string[] };

/**
 * How a running embedded sandbox learns the phrases of an agent chosen for a call (`agentPhrases`)
 * that it does not know yet: resolves once it knows them all. `taught`: the phrases it started
 * with. Each phrase is voiced once, however many calls wait on it, in every voice of the
 * catalogue (the service hears anyone: a caller is a person), one phrase at a time (voicing is
 * CPU the running calls need too). A phrase it cannot learn is a warning; the call goes on.
 */
export function sandboxTeacher(sandbox: Pick<Sandbox, 'state'>, taught: readonly string[], logger: Logger): SandboxTeacher {
  const learning = new Map<string, Promise<void>>(taught.map((p) => [p, Promise.resolve()]));
  // What it knows now, in the order learnt: the call page lists these.
  const known = new Set(taught);
  let queue = Promise.resolve();
  const teach = async (agent: Agent, callId: string) => {
    const phrases = agentPhrases(agent);
    const fresh = phrases.filter((p) => !learning.has(p));
    // A warning, the default level's: voicing holds up a call for seconds a phrase on a busy
    // machine, and without a line the server looked hung.
    if (fresh.length) logger.warn({ call: callId, agent: agent.name }, `agent "${agent.name}" chosen for a call: ${voicing(fresh.length, sandbox.state.voices.values())}`);
    for (const phrase of fresh) {
      // After the phrase before, whether or not it was learnt.
      queue = queue.catch(() => {}).then(() => sandbox.state.learnPhrase(phrase)).then(() => void known.add(phrase));
      learning.set(
        phrase,
        queue.catch((err: Error) => {
          // Tried again by the next call that needs it.
          learning.delete(phrase);
          logger.warn({ call: callId, agent: agent.name, err: err.message }, "the embedded sandbox could not learn one of the agent's phrases; the call goes on without it");
        }),
      );
    }
    await Promise.all(phrases.map((p) => learning.get(p)));
  };
  return Object.assign(teach, { known: () => [...known] });
}
