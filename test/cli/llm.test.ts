import assert from 'node:assert/strict';
import { test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { describeLlm, envLlm, llmFromEnv, serverLlm } from '../../src/cli/llm.ts';
import { OpenAiLlm } from '../../src/llm/openai.ts';
import { ScriptedLlm } from '../../src/llm/scripted.ts';

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

test("serve, call and campaign take the environment's model when nothing else chose one; with agentFor, for the agents without one; the config's and the agent's own are kept", () => {
  const env = { OPENAI_API_KEY: 'sk-test-secret-0123456789', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', HIWAR_LLM_MODEL: 'qwen2.5' };
  assert.deepEqual(serverLlm({ agent: callCentre }, {}), {}, 'no key: the agent answers as before');
  const fromEnv = serverLlm({ agent: callCentre }, env);
  assert.ok(fromEnv.llm instanceof OpenAiLlm);
  assert.equal(fromEnv.line, 'openai:qwen2.5 at http://127.0.0.1:11434/v1');
  const own = new ScriptedLlm({ intents: [], fallback: 'عذرًا' });
  assert.equal(serverLlm({ agent: { ...callCentre, llm: own } }, env).llm, undefined, "the agent's own model is left to it");
  const perCall = serverLlm({ agent: callCentre, agentFor: () => undefined }, env);
  assert.equal(perCall.llm, undefined, 'agents chosen per call keep their own');
  assert.ok(perCall.fallbackLlm instanceof OpenAiLlm, 'and those without one answer with the environment\'s (they had the scripted intents)');
  assert.equal(perCall.line, 'openai:qwen2.5 at http://127.0.0.1:11434/v1 for the agents without a model of their own');
  assert.deepEqual(serverLlm({ agentFor: () => undefined }, {}), {}, 'no key: nothing changes');
  assert.equal(serverLlm({ configLlm: own, agent: callCentre }, env).llm, own);
});

test('a malformed OPENAI_BASE_URL is refused at start without repeating it (it failed each turn with Invalid URL)', () => {
  for (const bad of ['not-a-url', 'user:secret@gateway/v1', 'ftp://gateway/v1']) {
    assert.throws(() => envLlm({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: bad }), (err: Error) => /^OPENAI_BASE_URL is not an http:\/\/ or https:\/\/ URL/.test(err.message) && !err.message.includes('secret'));
    assert.throws(() => llmFromEnv(callCentre, { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: bad }), /OPENAI_BASE_URL is not an http/);
  }
  assert.equal(envLlm({ OPENAI_BASE_URL: 'not-a-url' }), undefined, 'without a key the variable is not read');
});
