import { OpenAiLlm } from '../llm/openai.ts';
import type { Llm } from '../llm/types.ts';
import { defaultLlm } from '../session/agent-session.ts';
import type { Agent } from '../session/agent.ts';
import type { Logger } from '../session/logger.ts';
import { parsedUrl } from '../server/option-checks.ts';
import { CliError } from './args.ts';
import { cliLogger } from './log.ts';

/**
 * The CLI's choice of model: the agent's own; else, with OPENAI_API_KEY set, an
 * OpenAI-compatible model (OPENAI_BASE_URL, HIWAR_LLM_MODEL); else the agent's scripted intents.
 * The core never reads the environment: this is where it is read.
 */
export function llmFromEnv(agent: Agent, env: NodeJS.ProcessEnv = process.env): Llm {
  return agent.llm ?? envLlm(env) ?? defaultLlm(agent);
}

/**
 * The OpenAI-compatible model OPENAI_API_KEY (OPENAI_BASE_URL, HIWAR_LLM_MODEL) names, or undefined
 * without a key. A base URL that is no http(s) URL is refused here, at start: it failed each
 * caller turn with `Invalid URL` mid-call. Its value is not repeated (it may hold credentials).
 */
export function envLlm(env: NodeJS.ProcessEnv = process.env): OpenAiLlm | undefined {
  if (!env.OPENAI_API_KEY) return undefined;
  const baseURL = env.OPENAI_BASE_URL || undefined;
  if (baseURL !== undefined && !/^https?:$/.test(parsedUrl(baseURL)?.protocol ?? '')) {
    throw new CliError('OPENAI_BASE_URL is not an http:// or https:// URL: give the server\'s address with its scheme (https://api.openai.com/v1, http://127.0.0.1:11434/v1), or unset it for OpenAI');
  }
  return new OpenAiLlm({ apiKey: env.OPENAI_API_KEY, baseURL, model: env.HIWAR_LLM_MODEL || undefined });
}

/**
 * The model of `hiwar serve`, `call` and `campaign`: the environment's when it names one and
 * nothing else chose (the config's `llm`, the agent's own). With `agentFor` it is `fallbackLlm`,
 * the model of each chosen agent that has none of its own, as for the one agent. Before, these
 * commands ignored OPENAI_API_KEY (and `serve` still did with `agentFor`) and answered real
 * callers with the scripted intents.
 */
export function serverLlm(o: { configLlm?: Llm; agent?: Agent; agentFor?: unknown }, env: NodeJS.ProcessEnv = process.env): { llm?: Llm; fallbackLlm?: Llm; line?: string } {
  if (o.configLlm) return { llm: o.configLlm, line: `the config's (${o.configLlm.name})` };
  if (!env.OPENAI_API_KEY) return {};
  if (o.agentFor) {
    const fallbackLlm = envLlm(env)!;
    return { fallbackLlm, line: `${describeLlm(fallbackLlm, env)} for the agents without a model of their own` };
  }
  if (o.agent?.llm) return { line: `the agent's own (${o.agent.llm.name}; OPENAI_API_KEY is not used)` };
  const llm = envLlm(env);
  return { llm, line: llm && describeLlm(llm, env) };
}

/**
 * Which model answers, in words, for the commands' opening lines: a key left in the shell (or a
 * missing one) should not surprise anyone mid-call. Never shows the key.
 */
export function describeLlm(llm: Llm, env: NodeJS.ProcessEnv = process.env): string {
  if (llm.name === 'scripted') return "the agent's scripted intents (set OPENAI_API_KEY for a real model)";
  if (llm instanceof OpenAiLlm) return `${llm.name} at ${withoutCredentials(env.OPENAI_BASE_URL || 'https://api.openai.com/v1')}`;
  return llm.name;
}

/** A base URL as it may be shown: without a user name or password written into it. */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return '(OPENAI_BASE_URL is not a URL)';
  }
}

/** The CLI's logger for one call, at HIWAR_LOG_LEVEL (default warn), readable lines (src/cli/log.ts). */
export const loggerFromEnv = (env: NodeJS.ProcessEnv = process.env): Logger => cliLogger('warn', env);
