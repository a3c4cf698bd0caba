/**
 * The readiness probe of the model counts run time, as the other clients' timeouts do: a
 * process stalled past the probe's timeout right after the model's server answered reads the
 * answer instead of reporting the model unreachable. A server that never answers still times out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APIConnectionTimeoutError } from 'openai';
import { probeModels } from '../../src/llm/model-probe.ts';
import { localServer, stall } from '../helpers/stall.ts';

const TIMEOUT_MS = 200;

const server = localServer((req, res) => {
  if (!req.url?.startsWith('/v1/models')) return; // /hang/v1/models: never answers.
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
  stall(3 * TIMEOUT_MS);
});

test('an answer that came while the process stalled past the timeout is read, not timed out', async () => {
  await probeModels({ baseURL: `${server.url()}/v1`, apiKey: 'sk-test', timeoutMs: TIMEOUT_MS });
});

test('a model server that never answers still times out', async () => {
  await assert.rejects(probeModels({ baseURL: `${server.url()}/hang/v1`, apiKey: 'sk-test', timeoutMs: TIMEOUT_MS }), (e: unknown) => e instanceof APIConnectionTimeoutError);
});
