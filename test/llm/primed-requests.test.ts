import assert from 'node:assert/strict';
import { createServer, globalAgent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, mock, test } from 'node:test';
import { requestHeaders, streamChatCompletion, targetOf, type ChatStreamOptions } from '../../src/llm/chat-stream.ts';
import { OpenAiLlm } from '../../src/llm/openai.ts';
import { PrimedRequests } from '../../src/llm/primed-requests.ts';
import { Deadline } from '../helpers/deadline.ts';

let server: ReturnType<typeof createServer>;
let baseURL = '';
/** Each request: the client's port and the body. */
let seen: { port: number; body: string }[] = [];
const connections = new Set<Socket>();
let closeAfter = false;

before(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const c of req) body += c;
    seen.push({ port: req.socket.remotePort!, body });
    res.writeHead(200, { 'content-type': 'text/event-stream', ...(closeAfter ? { connection: 'close' } : {}) });
    res.end(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: 'نعم' }, finish_reason: null }] })}\n\ndata: [DONE]\n\n`);
  });
  server.on('connection', (s: Socket) => {
    connections.add(s);
    s.on('close', () => connections.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const primer = (o: Partial<ConstructorParameters<typeof PrimedRequests>[2]> = {}) => new PrimedRequests(targetOf(baseURL), requestHeaders({ apiKey: 'sk-test' }), o);
const opts = (primed: PrimedRequests): ChatStreamOptions => ({ baseURL, apiKey: 'sk-test', timeoutMs: 5000, maxRetries: 1, signal: new AbortController().signal, primed });
async function ask(primed: PrimedRequests, content = 'سلام'): Promise<string> {
  let out = '';
  for await (const c of streamChatCompletion({ model: 'm', messages: [{ role: 'user', content }], stream: true }, opts(primed))) out += c.choices[0]?.delta.content ?? '';
  return out;
}
const until = async (what: string, ok: () => boolean) => {
  const d = new Deadline(2000);
  while (!ok()) {
    if (d.expired) assert.fail(`not within 2 s: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};
/** A fresh primer after one request read to its end, with its next request ready. */
async function readyAfterOneRequest(): Promise<PrimedRequests> {
  seen = [];
  closeAfter = false;
  const primed = primer();
  assert.equal(await ask(primed), 'نعم');
  await until('a ready request', () => primed.size === 1);
  return primed;
}
/** Sockets that keep this process alive (a ready request's must not). */
const liveSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

test('a response read to its end makes the next request ready on its connection; that request is sent as it is, body and headers', async () => {
  const primed = await readyAfterOneRequest();
  assert.equal(seen[0]!.body.includes('سلام'), true);
  const open = connections.size;
  assert.equal(await ask(primed, 'ثانية'), 'نعم');
  assert.equal(seen.length, 2);
  assert.equal(seen[1]!.port, seen[0]!.port, 'the ready request went out on the first response\'s connection');
  assert.equal(JSON.parse(seen[1]!.body).messages[0].content, 'ثانية');
  assert.equal(connections.size, open, 'no connection opened for it');
  await until('ready again', () => primed.size === 1);
  primed.close();
  assert.equal(primed.size, 0);
});

test('a ready request is written at once: its bytes are on the socket when end() returns', async () => {
  const primed = await readyAfterOneRequest();
  const req = primed.take()!;
  assert.ok(req, 'one ready request');
  await until('its socket', () => !!req.socket);
  const written = req.socket!.bytesWritten;
  req.setHeader('content-length', 2);
  req.on('error', () => {});
  req.on('response', (res) => res.resume());
  req.end('{}');
  assert.ok(req.socket!.bytesWritten > written, 'written inside end(), not on a later tick');
  await until('answered', () => seen.length === 2);
});

test('unused, a ready request keeps nothing alive and fails no one: the server closing its connection drops it, and the next request is made as before', async () => {
  const primed = await readyAfterOneRequest();
  const idle = liveSockets();
  const req = primed.take()!;
  await until('its socket', () => !!req.socket);
  assert.equal(liveSockets(), idle + 1, 'taken, its socket holds the process again; ready, it did not');
  req.destroy();
  req.on('error', () => {});
  await ask(primed);
  await until('ready again', () => primed.size === 1);
  server.closeIdleConnections();
  await until('dropped once the server closed its connection', () => primed.size === 0);
  assert.equal(await ask(primed), 'نعم');
  assert.equal(seen.length, 3);
  primed.close();
});

test('no ready request on a connection the server closes, and none kept past idleMs', async () => {
  seen = [];
  closeAfter = true;
  const primed = primer({ idleMs: 50 });
  await ask(primed);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(primed.size, 0, 'priming never opens a connection');
  closeAfter = false;
  // The idle timer on virtual time: at 50 ms of the wall clock, a loaded machine dropped the
  // ready request before the test had seen it. Polled on turns of the loop (setTimeout is the mock's).
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    await ask(primed);
    const d = new Deadline(2000);
    const size = () => primed.size; // read again each time (the assertion above narrowed primed.size to 0)
    while (size() !== 1) {
      if (d.expired) assert.fail('not within 2 s: a ready request');
      await new Promise((r) => setImmediate(r));
    }
    mock.timers.tick(49);
    assert.equal(size(), 1, 'kept until idleMs');
    mock.timers.tick(1);
    assert.equal(size(), 0, 'dropped after idleMs');
  } finally {
    mock.timers.reset();
  }
  assert.equal(await ask(primed), 'نعم');
  primed.close();
});

test('OpenAiLlm makes its next request ready by default; primedRequests: false leaves the connection free in the pool', async () => {
  closeAfter = false;
  const freeHere = () => Object.values(globalAgent.freeSockets).flat().filter((s) => s?.remotePort === (server.address() as AddressInfo).port).length;
  const reply = async (llm: OpenAiLlm) => {
    for await (const _ of llm.stream({ messages: [{ role: 'user', content: 'سلام' }], tools: [], signal: new AbortController().signal }));
  };
  server.closeIdleConnections();
  await until('no connection left from before', () => connections.size === 0);
  await reply(new OpenAiLlm({ baseURL, apiKey: 'k', model: 'm', primedRequests: false }));
  await until('its connection free in the pool', () => freeHere() === 1);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(freeHere(), 1, 'not taken by a ready request');
  await reply(new OpenAiLlm({ baseURL, apiKey: 'k', model: 'm' }));
  await until('the free connection held by a ready request', () => freeHere() === 0);
  assert.equal(connections.size, 1, 'the same one connection');
  server.closeIdleConnections();
});
