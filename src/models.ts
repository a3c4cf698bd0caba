/**
 * Default model ids the framework names outside the service client. The service's own (TTS,
 * STT, by naming) live with the client: `DEFAULT_MODELS` in `src/service/models.ts`, resolved
 * into `client.config.models`.
 */
export const MODELS = {
  /** The OpenAI-compatible chat model used when none is named (the CLI, `OpenAiLlm`). */
  llm: 'gpt-4o-mini',
} as const;
