import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { OpenAiLlm } from '../../src/llm/openai.ts';
import { agentTurns, call } from '../helpers/call.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

/** A model server speaking Chat Completions streaming, with one tool-using behaviour. */
const seen: any[] = [];
let server: ReturnType<typeof createServer>;
let baseURL = '';
let sb: Running;

function stream(res: ServerResponse, deltas: object[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const delta of deltas) {
    res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

before(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const c of req) body += c;
    const json = JSON.parse(body);
    seen.push(json);
    const last = json.messages.at(-1);
    if (last.role === 'tool') {
      const { balance } = JSON.parse(last.content);
      return stream(res, [{ content: 'رصيدك الحالي ' }, { content: `${balance.toLocaleString('en-US')} ريال. ` }, { content: 'هل من خدمة أخرى؟' }]);
    }
    if (/رصيد/.test(last.content)) {
      return stream(res, [{ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_balance', arguments: '{"account":"current"}' } }] }]);
    }
    stream(res, [{ content: 'عذرًا، لم أفهم.' }]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  sb = await runSandbox();
});
after(async () => {
  server.close();
  await sb.close();
});

test('a call with an OpenAI-compatible model: tool call round trip through the whole pipeline', async () => {
  const llm = new OpenAiLlm({ baseURL, apiKey: 'sk-model', model: 'local-model' });
  const c = await call(sb.client, [{ say: 'أريد معرفة رصيد حسابي' }], { llm });
  const reply = agentTurns(c)[1]!;
  assert.equal(reply.text, 'رصيدك الحالي 12,500 ريال. هل من خدمة أخرى؟');
  assert.equal(reply.heardText, reply.text);
  assert.ok(c.events.some((e) => e.type === 'tool' && e.outcome.call.name === 'get_balance' && (e.outcome.result as { balance: number }).balance === 12500));
  const first = seen[0];
  assert.equal(first.model, 'local-model');
  assert.equal(first.messages[0].role, 'system');
  assert.equal(first.messages[0].content, callCentre.instructions);
  assert.deepEqual(first.messages.at(-1), { role: 'user', content: 'أريد معرفة رصيد حسابي' });
  assert.ok(first.tools.some((t: any) => t.function.name === 'block_card'));
  const second = seen[1];
  assert.equal(second.messages.at(-1).role, 'tool');
  assert.equal(second.messages.at(-2).tool_calls[0].function.name, 'get_balance');
  assert.equal(c.report.llm, 'openai:local-model');
});
