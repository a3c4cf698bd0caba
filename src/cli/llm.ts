import { OpenAiLlm } from '../llm/openai.ts';
import type { Llm } from '../llm/types.ts';
import { defaultLlm } from '../session/agent-session.ts';
import type { Agent } from '../session/agent.ts';
import { createLogger, type Logger } from '../session/logger.ts';

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

/** The CLI's logger, at HIWAR_LOG_LEVEL (default warn). */
export const loggerFromEnv = (env: NodeJS.ProcessEnv = process.env): Logger => createLogger(env.HIWAR_LOG_LEVEL || 'warn');
