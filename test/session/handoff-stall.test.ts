/**
 * The handoff's summary (the model's, within its timeout) read after this process stalled past
 * the timeout: the timeout counts run time, so the summary the model wrote is kept instead of
 * being traded for the plain digest. A model that never answers still gives the digest.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpenAiLlm } from '../../src/llm/index.ts';
import type { ChatMessage } from '../../src/llm/types.ts';
import { digest, summarize } from '../../src/session/handoff.ts';
import { localServer, stall } from '../helpers/stall.ts';

const TIMEOUT_MS = 200;
/** Longer than the timeout: this process is off the CPU (a synchronous task) while the answer waits. */
const STALL_MS = 3 * TIMEOUT_MS;
const SUMMARY = 'المتصل يريد معرفة رصيده.';

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

let silent = false;
const model = localServer((req, res) => {
  req.resume();
  if (silent) return;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(chunk({ role: 'assistant', content: SUMMARY }, 'stop') + 'data: [DONE]\n\n');
  // The whole summary is on its way; this process then does nothing else for STALL_MS.
  stall(STALL_MS);
});
const baseURL = () => `${model.url()}/v1`;

const history: ChatMessage[] = [
  { role: 'user', content: 'أبغى أعرف رصيدي' },
  { role: 'assistant', content: 'لحظة من فضلك.' },
];

test("a summary the model wrote while the process stalled past the timeout is kept, not traded for the digest", async () => {
  silent = false;
  const llm = new OpenAiLlm({ baseURL: baseURL(), apiKey: 'k', model: 'm', primedRequests: false });
  assert.equal(await summarize(history, llm, TIMEOUT_MS), SUMMARY);
});

test('a model that never answers still gives the plain digest after the timeout', async () => {
  silent = true;
  const llm = new OpenAiLlm({ baseURL: baseURL(), apiKey: 'k', model: 'm', primedRequests: false });
  assert.equal(await summarize(history, llm, TIMEOUT_MS), digest(history));
});
