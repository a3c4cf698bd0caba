import assert from 'node:assert/strict';
import { createServer, globalAgent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, AuthenticationError, InternalServerError } from 'openai';
import { streamChatBatches, streamChatCompletion, type ChatStreamOptions } from '../../src/llm/chat-stream.ts';
import { OpenAiLlm } from '../../src/llm/openai.ts';
import { classifyFailure } from '../../src/session/failure.ts';
import { Deadline, until } from '../helpers/deadline.ts';
import { stall } from '../helpers/stall.ts';

/** What each request of a test gets, in order; the last one repeats. */
let script: ((req: IncomingMessage, res: ServerResponse) => void)[] = [];
let seen: { port: number; auth?: string; body: any }[] = [];
let server: ReturnType<typeof createServer>;
let baseURL = '';
const chunk = (content: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const ok = (req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(chunk('مرحبا') + chunk(' بك'));
  res.end('data: [DONE]\n\n');
};

before(async () => {
  server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    seen.push({ port: req.socket.remotePort!, auth: req.headers.authorization, body: JSON.parse(body) });
    (script[seen.length - 1] ?? script.at(-1)!)(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const opts = (o: Partial<ChatStreamOptions> = {}): ChatStreamOptions => ({ baseURL, apiKey: 'sk-test', timeoutMs: 5000, maxRetries: 1, signal: new AbortController().signal, ...o });
async function texts(o?: Partial<ChatStreamOptions>): Promise<string> {
  let out = '';
  for await (const c of streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'سلام' }], stream: true }, opts(o))) out += c.choices[0]?.delta.content ?? '';
  return out;
}
const reset = (...s: typeof script) => {
  script = s;
  seen = [];
};

test('streams the chunks with the key and the body, over one kept-alive connection', async () => {
  reset(ok);
  assert.equal(await texts(), 'مرحبا بك');
  assert.equal(await texts(), 'مرحبا بك');
  assert.equal(seen.length, 2);
  assert.equal(seen[0]!.auth, 'Bearer sk-test');
  assert.deepEqual(seen[0]!.body, { model: 'm', messages: [{ role: 'user', content: 'سلام' }], stream: true });
  assert.equal(seen[1]!.port, seen[0]!.port, 'the second request reuses the first one\'s connection');
});

test('an error status becomes the SDK\'s error class, classified as before', async () => {
  reset((_, res) => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'bad key', type: 'invalid_request_error' } })));
  const err = await texts().then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof AuthenticationError, String(err));
  assert.equal(err.status, 401);
  assert.match(err.message, /bad key/);
  assert.equal(seen.length, 1, '401 is not retried');
  assert.equal(classifyFailure(err, 'llm').kind, 'auth');
});

test('a retryable status is retried once, as the SDK does, honouring retry-after-ms', async () => {
  const busy = (_: IncomingMessage, res: ServerResponse) => res.writeHead(503, { 'retry-after-ms': '5' }).end('busy');
  reset(busy, ok);
  assert.equal(await texts(), 'مرحبا بك');
  assert.equal(seen.length, 2);
  reset(busy);
  const err = await texts().then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof InternalServerError, String(err));
  assert.equal(seen.length, 2, 'one retry, then the error');
  assert.equal(classifyFailure(err, 'llm').kind, 'network');
});

test('an abort while waiting to retry ends the wait at once with an APIUserAbortError', async () => {
  reset((_, res) => res.writeHead(503, { 'retry-after-ms': '30000' }).end('busy'));
  const ctrl = new AbortController();
  const before30s = new Deadline(25_000);
  const pending = texts({ signal: ctrl.signal }).then(() => undefined, (e: unknown) => e);
  while (!seen.length) await new Promise((r) => setTimeout(r, 5));
  ctrl.abort();
  const err = await pending;
  assert.ok(err instanceof APIUserAbortError, String(err));
  assert.equal(seen.length, 1, 'the retry was never sent');
  assert.ok(!before30s.expired, 'not after the 30 s wait');
});

test('an error event in the stream is thrown as an APIError', async () => {
  reset((_, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(chunk('جزء') + `data: ${JSON.stringify({ error: { message: 'overloaded' } })}\n\n`);
  });
  let got = '';
  const err = await (async () => {
    for await (const c of streamChatCompletion({ model: 'm', messages: [], stream: true }, opts())) got += c.choices[0]?.delta.content ?? '';
  })().then(() => undefined, (e: unknown) => e);
  assert.equal(got, 'جزء');
  assert.ok(err instanceof APIError && /overloaded/.test(err.message), String(err));
});

test('no server: a connection error after the retry; no headers in time: a timeout error', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const refused = await texts({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 }).then(() => undefined, (e: unknown) => e);
  assert.ok(refused instanceof APIConnectionError && !(refused instanceof APIConnectionTimeoutError), String(refused));
  assert.equal(classifyFailure(refused, 'llm').kind, 'network');

  reset(() => {}); // never answers
  const slow = await texts({ timeoutMs: 100, maxRetries: 0 }).then(() => undefined, (e: unknown) => e);
  assert.ok(slow instanceof APIConnectionTimeoutError, String(slow));
  assert.equal(classifyFailure(slow, 'llm').kind, 'timeout');
});

// The timeout counts run time: a model that answered while this process was off the CPU (here a
// synchronous stall of 3 timeouts in the server's own handler, in this process) is read, not
// timed out. Node runs a timer that came due during the stall before it reads the socket.
test('a reply whose headers came while the process stalled past the timeout is read, not timed out', async () => {
  reset((req, res) => {
    ok(req, res);
    stall(300);
  });
  assert.equal(await texts({ timeoutMs: 100, maxRetries: 0 }), 'مرحبا بك');
});

test('an abort before the answer is an APIUserAbortError; during it, the stream ends', async () => {
  reset(() => {});
  const ctrl = new AbortController();
  setTimeout(() => ctrl.abort(), 50);
  const err = await texts({ signal: ctrl.signal }).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof APIUserAbortError, String(err));

  reset((_, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk('أول'));
    // ... and nothing more: the caller aborts after the first chunk.
  });
  const mid = new AbortController();
  let n = 0;
  for await (const _ of streamChatCompletion({ model: 'm', messages: [], stream: true }, opts({ signal: mid.signal }))) {
    n++;
    mid.abort();
  }
  assert.equal(n, 1);
});

test('OpenAiLlm: the reply ends at the model\'s finish, before [DONE], and the connection is reused after', async () => {
  const ends: (() => void)[] = [];
  reset((_, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk('تم.') + `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
    // [DONE] and the end of the body only when the test says: a reply waiting for them never ends.
    ends.push(() => res.end('data: [DONE]\n\n'));
  });
  const llm = new OpenAiLlm({ baseURL, apiKey: 'sk-test', model: 'm' });
  const ask = async () => {
    let text = '';
    for await (const e of llm.stream({ messages: [{ role: 'user', content: 'سلام' }], tools: [], signal: new AbortController().signal })) if (e.type === 'text') text += e.delta;
    return text;
  };
  assert.equal(await ask(), 'تم.');
  assert.equal(ends.length, 1);
  ends[0]!();
  // Back in the pool once the client has read the end (or taken by the ready request made on it):
  // waited for, as a fixed 100 ms was not enough on a loaded machine.
  const port = seen[0]!.port;
  const primed = (llm as unknown as { primed?: { size: number } }).primed;
  await until(() => Object.values(globalAgent.freeSockets).flat().some((s) => s?.localPort === port) || primed?.size === 1, 'the drained connection back in the pool');
  script = [ok]; // the second answer ends by itself
  assert.equal(await ask(), 'مرحبا بك');
  assert.equal(seen[1]!.port, seen[0]!.port, 'the drained connection went back to the pool');
});

test('OpenAiLlm: deltas that arrive in one read go on as one text event; deltas apart stay apart', async () => {
  reset((_, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // Three deltas in one write, then a fourth alone once the reader has handed on the three (a
    // fixed 100 ms later: a loaded machine read both writes at once).
    res.write(chunk('حسنًا،') + chunk(' رصيدك') + chunk(' متاح'));
    rest = () => res.end(chunk(' الآن.') + 'data: [DONE]\n\n');
  });
  let rest = () => {};
  const llm = new OpenAiLlm({ baseURL, apiKey: 'sk-test', model: 'm' });
  const deltas: string[] = [];
  for await (const e of llm.stream({ messages: [{ role: 'user', content: 'سلام' }], tools: [], signal: new AbortController().signal })) {
    if (e.type === 'text' && deltas.push(e.delta) === 1) rest();
  }
  assert.deepEqual(deltas, ['حسنًا، رصيدك متاح', ' الآن.']);
});

test('an error event mid-stream: what came before it in the same read is handed on first', async () => {
  reset((_, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(chunk('مرحبا') + `data: ${JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } })}\n\n`);
  });
  let got = '';
  const err = await (async () => {
    for await (const c of streamChatCompletion({ model: 'm', messages: [], stream: true }, opts())) got += c.choices[0]?.delta.content ?? '';
  })().then(() => undefined, (e: unknown) => e);
  assert.equal(got, 'مرحبا');
  assert.ok(err instanceof APIError);
});

test('a character split between two reads, and an answer larger than the read buffer, come through whole', async () => {
  const bytes = Buffer.from(chunk('مرحبا'));
  const cut = bytes.indexOf(Buffer.from('ر')) + 1; // inside the two bytes of ر
  reset((_, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(bytes.subarray(0, cut));
    setTimeout(() => res.end(Buffer.concat([bytes.subarray(cut), Buffer.from('data: [DONE]\n\n')])), 20);
  });
  assert.equal(await texts(), 'مرحبا');

  // 200 KB of deltas while the reader is busy: more than the response buffers, so reading is
  // paused and resumed as the reader catches up.
  const word = 'كلمة ';
  reset((_, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk(''));
    setTimeout(() => res.end(chunk(word).repeat(2000) + 'data: [DONE]\n\n'), 20);
  });
  let out = '';
  for await (const batch of streamChatBatches({ model: 'm', messages: [], stream: true }, opts())) {
    for (const c of batch) out += c.choices[0]?.delta.content ?? '';
    await new Promise((r) => setTimeout(r, 150)); // a slow reader
  }
  assert.equal(out, word.repeat(2000));
});

test('the key is in no error message', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const refused = await texts({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0, apiKey: 'sk-secret-1' }).then(() => undefined, (e: unknown) => e);
  reset((_, res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'bad request' } })));
  const bad = await texts({ apiKey: 'sk-secret-1' }).then(() => undefined, (e: unknown) => e);
  for (const err of [refused, bad]) {
    assert.ok(err instanceof Error);
    const all = `${err.message} ${String((err as { cause?: unknown }).cause)} ${err.stack} ${JSON.stringify(err)}`;
    assert.doesNotMatch(all, /sk-secret-1/);
  }
});

test('a server that echoes the key it refused: the key is out of the error, which goes to the log line', async () => {
  const echo = (req: IncomingMessage, res: ServerResponse) => {
    const key = String(req.headers.authorization ?? req.headers['api-key']).replace('Bearer ', '');
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error' } }));
  };
  reset(echo);
  const status = await texts({ apiKey: 'sk-echoed-secret-1' }).then(() => undefined, (e: unknown) => e);
  const azure = await texts({ headers: { 'api-key': 'azure-echoed-secret-2', authorization: null } }).then(() => undefined, (e: unknown) => e);
  reset((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify({ error: { message: `key ${String(req.headers.authorization).slice(7)} is over its quota` } })}\n\n`);
  });
  const inStream = await texts({ apiKey: 'sk-echoed-secret-3' }).then(() => undefined, (e: unknown) => e);
  // The SDK's own client, given to OpenAiLlm: the same.
  const { default: OpenAI } = await import('openai');
  reset(echo);
  const llm = new OpenAiLlm({ model: 'm', client: new OpenAI({ apiKey: 'sk-echoed-secret-4', baseURL, maxRetries: 0 }) });
  const client = await (async () => {
    for await (const _ of llm.stream({ messages: [{ role: 'user', content: 'سلام' }], tools: [], signal: new AbortController().signal }));
  })().then(() => undefined, (e: unknown) => e);
  for (const err of [status, azure, inStream, client]) {
    assert.ok(err instanceof APIError, String(err));
    assert.match(err.message, /\[redacted\]/, 'the server\'s message is kept, less the key');
    assert.doesNotMatch(`${err.message} ${JSON.stringify(err)}`, /echoed-secret/);
  }
});
