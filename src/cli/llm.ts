import { OpenAiLlm } from '../llm/openai.ts';
import type { Llm } from '../llm/types.ts';
import { defaultLlm } from '../session/agent-session.ts';
import type { Agent } from '../session/agent.ts';
import type { Logger } from '../session/logger.ts';
import { cliLogger } from './log.ts';

/**
 * The CLI's choice of model: the agent's own; else, with OPENAI_API_KEY set, an
 * OpenAI-compatible model (OPENAI_BASE_URL, HIWAR_LLM_MODEL); else the agent's scripted intents.
 * The core never reads the environment: this is where it is read.
 */
export function llmFromEnv(agent: Agent, env: NodeJS.ProcessEnv = process.env): Llm {
  if (agent.llm) return agent.llm;
  if (env.OPENAI_API_KEY) return new OpenAiLlm({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL || undefined, model: env.HIWAR_LLM_MODEL || undefined });
  return defaultLlm(agent);
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
