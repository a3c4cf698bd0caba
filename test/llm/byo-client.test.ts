import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI, { APIUserAbortError, AuthenticationError, AzureOpenAI } from 'openai';
import { z } from 'zod';
import { OpenAiLlm, defineTool, streamReply, type LlmEvent, type LlmRequest } from '../../src/llm/index.ts';
import { classifyFailure } from '../../src/session/failure.ts';

/**
 * The adapter's two paths (the built-in keep-alive request, the user's own `openai` client)
 * against one OpenAI-compatible server on a real socket: the same replies, tools, aborts and
 * errors, and the request as each was configured to send it.
 */
interface Seen {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: any;
  /** Resolves with the number of chunks written when the response's connection closes. */
  closed: Promise<number>;
}
const seen: Seen[] = [];
let server: ReturnType<typeof createServer>;
let origin = '';

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** Writes the deltas a few ms apart; `open` keeps the body open after the finish (no [DONE]). */
function sse(res: ServerResponse, deltas: object[], o: { finish?: string; delayMs?: number; open?: boolean } = {}): Promise<number> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let written = 0;
  return new Promise((resolve) => {
    res.on('close', () => resolve(written));
    const next = () => {
      if (res.destroyed) return;
      if (written < deltas.length) {
        const last = written === deltas.length - 1;
        res.write(chunk(deltas[written++]!, last && o.finish ? o.finish : null));
        setTimeout(next, o.delayMs ?? 2);
      } else if (!o.open) res.end('data: [DONE]\n\n');
    };
    next();
  });
}

before(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    for await (const c of req) text += c;
    const url = new URL(req.url!, 'http://x');
    const body = JSON.parse(text);
    const entry: Seen = { path: url.pathname, query: url.searchParams, headers: req.headers, body, closed: Promise.resolve(0) };
    seen.push(entry);
    if (!url.pathname.endsWith('/chat/completions')) return void res.writeHead(404).end();
    const last = body.messages.at(-1);
    if (last.role === 'tool') {
      entry.closed = sse(res, [{ content: 'رصيدك ' }, { content: `${JSON.parse(last.content).balance} ريال.` }], { finish: 'stop' });
    } else if (last.content.includes('رصيد')) {
      entry.closed = sse(
        res,
        [
          { role: 'assistant', tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_balance', arguments: '{"acc' } }] },
          { tool_calls: [{ index: 0, function: { arguments: 'ount":"main"}' } }] },
        ],
        { finish: 'tool_calls' },
      );
    } else if (last.content.includes('طويل')) {
      entry.closed = sse(res, Array.from({ length: 400 }, () => ({ content: 'كلمة ' })), { delayMs: 10 });
    } else if (last.content.includes('مفتوح')) {
      // The model's finish, then a server that never ends the body.
      entry.closed = sse(res, [{ content: 'تم ' }, { content: 'الأمر.' }], { finish: 'stop', open: true });
    } else if (last.content.includes('مفتاح')) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key', type: 'invalid_request_error', code: 'invalid_api_key' } }));
    } else {
      entry.closed = sse(res, [{ role: 'assistant', content: 'مرحبا ' }, { content: 'بك.' }], { finish: 'stop' });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const tools = [defineTool({ name: 'get_balance', description: 'balance', parameters: z.object({ account: z.string() }), execute: ({ account }) => ({ account, balance: 250 }) })];
const ask = (content: string, signal = new AbortController().signal): LlmRequest => ({ messages: [{ role: 'user', content }], tools, signal });
async function collect(llm: OpenAiLlm, req: LlmRequest): Promise<LlmEvent[]> {
  const out: LlmEvent[] = [];
  for await (const e of llm.stream(req)) out.push(e);
  return out;
}
const text = (events: { type: string; delta?: string }[]) => events.map((e) => (e.type === 'text' ? e.delta : '')).join('');

let fetches = 0;
const API_VERSION = '2024-10-21';

/** Each way of configuring the adapter, with what its request must carry. */
const variants: { name: string; model: string; make: () => OpenAiLlm; expect: (s: Seen) => void }[] = [
  {
    name: 'built-in path with defaultHeaders and defaultQuery',
    model: 'm1',
    make: () => new OpenAiLlm({ baseURL: `${origin}/v1`, apiKey: 'sk-fast', model: 'm1', defaultHeaders: { 'X-Gateway-Route': 'ar', 'OpenAI-Organization': 'org-1' }, defaultQuery: { tenant: 't1' } }),
    expect: (s) => {
      assert.equal(s.path, '/v1/chat/completions');
      assert.equal(s.query.get('tenant'), 't1');
      assert.equal(s.headers.authorization, 'Bearer sk-fast');
      assert.equal(s.headers['x-gateway-route'], 'ar');
      assert.equal(s.headers['openai-organization'], 'org-1');
    },
  },
  {
    name: 'built-in path, Azure-style (api-key header, api-version query, no bearer)',
    model: 'dep-ar',
    make: () => new OpenAiLlm({ baseURL: `${origin}/openai/deployments/dep-ar`, model: 'dep-ar', defaultHeaders: { 'api-key': 'az-key', authorization: null }, defaultQuery: { 'api-version': API_VERSION } }),
    expect: (s) => {
      assert.equal(s.path, '/openai/deployments/dep-ar/chat/completions');
      assert.equal(s.query.get('api-version'), API_VERSION);
      assert.equal(s.headers['api-key'], 'az-key');
      assert.equal(s.headers.authorization, undefined);
    },
  },
  {
    name: 'own OpenAI client (organization, project, default headers and query, custom fetch)',
    model: 'm2',
    make: () =>
      new OpenAiLlm({
        model: 'm2',
        client: new OpenAI({
          baseURL: `${origin}/v1`,
          apiKey: 'sk-sdk',
          organization: 'org-1',
          project: 'proj-1',
          defaultHeaders: { 'X-Gateway-Route': 'ar' },
          defaultQuery: { tenant: 't1' },
          fetch: (url, init) => {
            fetches++;
            return fetch(url, init);
          },
          maxRetries: 0,
        }),
      }),
    expect: (s) => {
      assert.equal(s.path, '/v1/chat/completions');
      assert.equal(s.query.get('tenant'), 't1');
      assert.equal(s.headers.authorization, 'Bearer sk-sdk');
      assert.equal(s.headers['openai-organization'], 'org-1');
      assert.equal(s.headers['openai-project'], 'proj-1');
      assert.equal(s.headers['x-gateway-route'], 'ar');
    },
  },
  {
    name: 'own AzureOpenAI client',
    model: 'dep-ar',
    make: () => new OpenAiLlm({ model: 'dep-ar', client: new AzureOpenAI({ endpoint: origin, apiKey: 'az-key', apiVersion: API_VERSION, deployment: 'dep-ar', maxRetries: 0 }) }),
    expect: (s) => {
      assert.equal(s.path, '/openai/deployments/dep-ar/chat/completions');
      assert.equal(s.query.get('api-version'), API_VERSION);
      assert.equal(s.headers['api-key'], 'az-key');
    },
  },
];

for (const v of variants) {
  describe(`OpenAiLlm, ${v.name}`, () => {
    test('text streams in order; model, stream flag and tools in the body; headers and query reach the server', async () => {
      const before = fetches;
      const events = await collect(v.make(), ask('مرحبا'));
      assert.equal(text(events), 'مرحبا بك.');
      const s = seen.at(-1)!;
      v.expect(s);
      assert.equal(s.body.stream, true);
      assert.equal(s.body.model, v.model);
      assert.equal(s.body.tools[0].function.name, 'get_balance');
      if (v.name.includes('custom fetch')) assert.equal(fetches, before + 1, 'the request went through the client\'s own fetch');
    });

    test('tool round trip: streamed tool-call deltas assembled, the tool run, its result fed back', async () => {
      const events = [];
      for await (const e of streamReply(v.make(), [{ role: 'user', content: 'كم رصيدي' }], tools, new AbortController().signal)) events.push(e);
      assert.deepEqual(events.filter((e) => e.type === 'tool_started').map((e) => e.type === 'tool_started' && e.name), ['get_balance']);
      assert.equal(text(events), 'رصيدك 250 ريال.');
      const [first, second] = seen.slice(-2);
      v.expect(first!);
      v.expect(second!);
      assert.equal(second!.body.messages.at(-2).tool_calls[0].function.arguments, '{"account":"main"}');
      assert.equal(second!.body.messages.at(-1).tool_call_id, 'call_a');
    });

    test('finish_reason ends the reply while the server still holds the body open', async () => {
      const events = await collect(v.make(), ask('رد مفتوح'));
      assert.equal(text(events), 'تم الأمر.');
    });

    test('an abort mid-reply (barge-in) ends the stream and closes the request at the server', async () => {
      const ctrl = new AbortController();
      let n = 0;
      try {
        for await (const e of v.make().stream(ask('رد طويل', ctrl.signal))) if (e.type === 'text' && ++n === 3) ctrl.abort();
      } catch (err) {
        assert.ok(err instanceof APIUserAbortError, `ends quietly or with the SDK's abort error, got ${String(err)}`);
      }
      assert.ok(n >= 3 && n < 400);
      const written = await seen.at(-1)!.closed;
      assert.ok(written < 400, `the server stopped after ${written} of 400 chunks`);
    });

    test('an already aborted signal sends nothing and throws the SDK\'s abort error', async () => {
      const ctrl = new AbortController();
      ctrl.abort();
      const count = seen.length;
      await assert.rejects(collect(v.make(), ask('مرحبا', ctrl.signal)), APIUserAbortError);
      assert.equal(seen.length, count);
    });

    test('an error status becomes the SDK\'s typed error, classified as a failure of the model', async () => {
      const err = await collect(v.make(), ask('مفتاح خطأ')).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof AuthenticationError, String(err));
      assert.equal(err.status, 401);
      assert.deepEqual(classifyFailure(err, 'llm'), classifyFailure(new AuthenticationError(401, { message: 'x' }, undefined, new Headers()), 'llm'));
      v.expect(seen.at(-1)!);
    });
  });
}

test('connection options beside a client are refused with a clear error', () => {
  const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey: 'sk' });
  assert.throws(() => new OpenAiLlm({ client, baseURL: 'http://other/v1', defaultHeaders: { a: 'b' } }), /baseURL, defaultHeaders cannot be set beside `client`/);
  assert.doesNotThrow(() => new OpenAiLlm({ client, model: 'm', temperature: 0.2 }));
});
