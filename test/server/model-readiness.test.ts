/**
 * `/readyz` of `createAgentServer` tells whether the model can be reached (the body's `model`):
 * it checked the voice service and not the model, so a model URL pointing nowhere or a refused
 * model key left nothing for an operator to see before the first caller met it. By default a bad
 * model is said (`degraded`) and not a 503 (docs/scaling.md says why); `notReadyOn` makes it one.
 * The model's server is a small HTTP server answering `GET /models` as OpenAI's does (no model
 * server can be reached from a test).
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import OpenAI from 'openai';
import { OpenAiLlm } from '../../src/llm/openai.ts';
import { createAgentServer } from '../../src/server/index.ts';
import type { ModelProbeOptions } from '../../src/server/service-reachability.ts';
import type { Transport } from '../../src/transport/types.ts';
import type { Agent } from '../../src/session/agent.ts';
import { createLogger } from '../../src/session/logger.ts';
import { ServiceClient } from '../../src/service/client.ts';
import type { Llm } from '../../src/llm/types.ts';

const agent: Agent = { name: 'ready', instructions: 'x', greeting: 'أهلًا', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.' };
const MODEL_KEY = 'sk-model-readiness-key-0002';

/** A model server's `GET /models`: answers `status`, keeping the requests it was sent. */
async function fakeModelServer() {
  let status = 200;
  const seen: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req);
    if (!req.url?.startsWith('/v1/models')) return void res.writeHead(404).end();
    if (status === 200) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Incorrect API key provided: ${MODEL_KEY}`, type: 'invalid_request_error' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    seen,
    answer: (s: number) => (status = s),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

type Body = { status: string; degraded?: string[]; model?: { status: string; via: string; detail?: string; endpoints?: { endpoint: string; status: string }[] }; service?: unknown };

async function readyz(llm: Llm, modelProbe?: ModelProbeOptions | false): Promise<{ status: number; text: string; body: Body }> {
  // The voice service is left out (its own test): only the model decides here.
  const app = await createAgentServer({ agent, llm, client: new ServiceClient({ apiKey: 'sk-x', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }), serviceProbe: false, logger: createLogger('silent'), ...(modelProbe !== undefined ? { modelProbe } : {}) });
  try {
    const { url } = await app.listen({ port: 0 });
    const res = await fetch(`${url}/readyz`, { headers: { connection: 'close' } });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as Body };
  } finally {
    await app.close();
  }
}

test("the model answering: ready, with the model in the body; the probe is GET {baseURL}/models with the model's own key, headers and query", async () => {
  const m = await fakeModelServer();
  try {
    const llm = new OpenAiLlm({ baseURL: m.baseURL, apiKey: MODEL_KEY, model: 'm', defaultHeaders: { 'x-route': 'ar' }, defaultQuery: { 'api-version': '2024-10-21' } });
    const r = await readyz(llm);
    assert.deepEqual([r.status, r.body.status, r.body.model?.status, r.body.model?.via], [200, 'ok', 'reachable', 'probe'], r.text);
    assert.equal(r.body.service, undefined, 'serviceProbe: false');
    const asked = m.seen.at(-1)!;
    assert.deepEqual([asked.method, asked.url, asked.headers.authorization, asked.headers['x-route']], ['GET', '/v1/models?api-version=2024-10-21', `Bearer ${MODEL_KEY}`, 'ar']);
  } finally {
    await m.close();
  }
});

test('a refused model key or a model URL pointing nowhere: 200 "degraded" by default, saying which and why (never the key); notReadyOn makes it a 503', async () => {
  const m = await fakeModelServer();
  try {
    const llm = new OpenAiLlm({ baseURL: m.baseURL, apiKey: MODEL_KEY, model: 'm' });
    m.answer(401);
    const refused = await readyz(llm);
    assert.deepEqual([refused.status, refused.body.status, refused.body.degraded, refused.body.model?.status, refused.body.model?.detail], [200, 'degraded', ['model refused'], 'refused', 'the model refused the API key (HTTP 401)']);
    assert.ok(!refused.text.includes(MODEL_KEY), 'the key the server echoed is in no body');
    const strict = await readyz(llm, { notReadyOn: ['unreachable', 'refused'] });
    assert.deepEqual([strict.status, strict.body.status], [503, 'model refused']);
    m.answer(503);
    const failing = await readyz(llm, { notReadyOn: ['unreachable'] });
    assert.deepEqual([failing.status, failing.body.status, failing.body.model?.detail], [503, 'model unreachable', 'the model answered with a server error (HTTP 503)']);
  } finally {
    await m.close();
  }
  const gone = new OpenAiLlm({ baseURL: m.baseURL, apiKey: MODEL_KEY, model: 'm' });
  const unreachable = await readyz(gone);
  assert.deepEqual([unreachable.status, unreachable.body.degraded, unreachable.body.model?.detail], [200, ['model unreachable'], 'the model could not be reached']);
  const off = await readyz(gone, false);
  assert.deepEqual([off.status, off.body.status, off.body.model], [200, 'ok', undefined], 'modelProbe: false');
});

test("your own `openai` client is probed through it (its models.list, no retry); a model that cannot be probed (scripted) is not in the body", async () => {
  const m = await fakeModelServer();
  try {
    m.answer(401);
    const llm = new OpenAiLlm({ model: 'm', client: new OpenAI({ baseURL: m.baseURL, apiKey: MODEL_KEY, maxRetries: 3 }) });
    const before = m.seen.length;
    const r = await readyz(llm);
    assert.deepEqual([r.status, r.body.degraded, r.body.model?.detail], [200, ['model refused'], 'the model refused the API key (HTTP 401)']);
    assert.equal(m.seen.length - before, 1, 'one request: the client\'s retries are off for the probe');
  } finally {
    await m.close();
  }
  const scripted = await readyz({ name: 'scripted', stream: async function* () {} });
  assert.deepEqual([scripted.status, scripted.body.status, scripted.body.model], [200, 'ok', undefined]);
  // A state no probe has would never take the instance out: said before anything starts.
  await assert.rejects(createAgentServer({ agent, modelProbe: { notReadyOn: ['down' as 'refused'] } }), /`modelProbe.notReadyOn` must be a list of 'unreachable' and 'refused', got \["down"\]/);
});

test("agents chosen per call: each distinct model endpoint a call brought is probed from then on, the body's model the worst, each endpoint listed", async () => {
  const [good, refusing] = [await fakeModelServer(), await fakeModelServer()];
  refusing.answer(401);
  const agents: Record<string, Agent> = {
    a: { ...agent, name: 'a', llm: new OpenAiLlm({ baseURL: good.baseURL, apiKey: MODEL_KEY, model: 'm' }) },
    b: { ...agent, name: 'b', llm: new OpenAiLlm({ baseURL: refusing.baseURL, apiKey: MODEL_KEY, model: 'm' }) },
    // The same endpoint as a's, through another model object (an agent made per call): probed once.
    c: { ...agent, name: 'c', llm: new OpenAiLlm({ baseURL: good.baseURL, apiKey: MODEL_KEY, model: 'other' }) },
  };
  const app = await createAgentServer({
    agentFor: (call) => agents[call.callId],
    client: new ServiceClient({ apiKey: 'sk-x', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }),
    serviceProbe: false,
    modelProbe: { maxAgeMs: 0 },
    logger: createLogger('silent'),
  });
  // A call reaches the agent chooser; its session then fails on this bare transport (no service here), which is not the point.
  const call = (callId: string) => app.host.runCall({ call: { provider: 'pcm', callId, parameters: {} }, output: { close: async () => {} } } as unknown as Transport);
  try {
    const { url } = await app.listen({ port: 0 });
    const readyz = async () => (await (await fetch(`${url}/readyz`, { headers: { connection: 'close' } })).json()) as Body;
    assert.equal((await readyz()).model, undefined, 'no model known before a call');
    await call('a');
    const one = await readyz();
    assert.deepEqual([one.status, one.model?.status, one.model?.endpoints], ['ok', 'reachable', undefined]);
    await call('b');
    await call('c');
    const before = good.seen.length;
    const both = await readyz();
    assert.deepEqual([both.status, both.degraded, both.model?.status], ['degraded', ['model refused'], 'refused'], JSON.stringify(both));
    assert.equal(both.model?.detail, `${refusing.baseURL}: the model refused the API key (HTTP 401)`, 'the worst, naming its endpoint');
    assert.deepEqual(
      both.model?.endpoints?.map((e) => [e.endpoint, e.status]),
      [
        [good.baseURL, 'reachable'],
        [refusing.baseURL, 'refused'],
      ],
    );
    assert.equal(good.seen.length - before, 1, "a's and c's endpoint asked once");
  } finally {
    await app.close();
    await good.close();
    await refusing.close();
  }
});
