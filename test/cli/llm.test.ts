import assert from 'node:assert/strict';
import { test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { describeLlm, llmFromEnv } from '../../src/cli/llm.ts';

test('the commands say which model answers: the scripted intents without a key', () => {
  const env = {};
  assert.equal(describeLlm(llmFromEnv(callCentre, env), env), "the agent's scripted intents (set OPENAI_API_KEY for a real model)");
});

test('with OPENAI_API_KEY: the model and where it is asked, never the key', () => {
  const env = { OPENAI_API_KEY: 'sk-test-secret-0123456789', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', HIWAR_LLM_MODEL: 'qwen2.5' };
  const line = describeLlm(llmFromEnv(callCentre, env), env);
  assert.equal(line, 'openai:qwen2.5 at http://127.0.0.1:11434/v1');
  assert.ok(!line.includes(env.OPENAI_API_KEY));
  const openai = { OPENAI_API_KEY: 'sk-test-secret-0123456789' };
  assert.match(describeLlm(llmFromEnv(callCentre, openai), openai), /^openai:\S+ at https:\/\/api\.openai\.com\/v1$/);
  const gateway = { ...openai, OPENAI_BASE_URL: 'https://user:pa55word@gateway.example.com/v1/' };
  assert.match(describeLlm(llmFromEnv(callCentre, gateway), gateway), / at https:\/\/gateway\.example\.com\/v1$/);
});
