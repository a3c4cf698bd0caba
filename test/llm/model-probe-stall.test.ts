/**
 * The readiness probe of the model counts run time, as the other clients' timeouts do: a
 * process stalled past the probe's timeout right after the model's server answered reads the
 * answer instead of reporting the model unreachable. A server that never answers still times out.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { APIConnectionTimeoutError } from 'openai';
import { probeModels } from '../../src/llm/model-probe.ts';

const TIMEOUT_MS = 200;
const STALL_MS = 3 * TIMEOUT_MS;
let server: Server;
let base: string;

before(async () => {
  server = createServer((req, res) => {
    if (req.url?.startsWith('/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
      const until = performance.now() + STALL_MS;
      while (performance.now() < until);
      return;
    }
    // /hang/v1/models: never answers.
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('an answer that came while the process stalled past the timeout is read, not timed out', async () => {
  await probeModels({ baseURL: `${base}/v1`, apiKey: 'sk-test', timeoutMs: TIMEOUT_MS });
});

test('a model server that never answers still times out', async () => {
  await assert.rejects(probeModels({ baseURL: `${base}/hang/v1`, apiKey: 'sk-test', timeoutMs: TIMEOUT_MS }), (e: unknown) => e instanceof APIConnectionTimeoutError);
});
