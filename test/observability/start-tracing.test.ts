import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { CallTrace, tracingActive } from '../../src/index.ts';
import { startTracing } from '../../src/server/index.ts';
import { createLogger } from '../../src/session/logger.ts';
import { until } from '../helpers/deadline.ts';

test("hiwar/server's startTracing: your own server's call traces reach an OTLP collector over HTTP, named by OTEL_SERVICE_NAME, as hiwar serve --otel's do", async () => {
  const got: { path: string; body: string }[] = [];
  const collector = createServer((req: IncomingMessage, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', body: Buffer.concat(parts).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  collector.listen(0, '127.0.0.1');
  await once(collector, 'listening');
  try {
    assert.equal(tracingActive(), false, 'nothing records before it');
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const tracing = await startTracing({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'my-bank-bot' } });
    assert.equal(tracing.url, `${endpoint}/v1/traces`);
    assert.equal(tracingActive(), true, 'traceSessions now wraps the sessions');
    const trace = new CallTrace({ call: { callId: 'CA9', provider: 'twilio', parameters: {} }, agent: 'bank' });
    trace.onEvent({ type: 'user_turn', text: 'كم رصيدي', turn: 1 });
    trace.onEvent({ type: 'ended', reason: 'caller hung up' });
    // The drain's shutdown sends what the batch holds.
    await tracing.shutdown();
    const spans = got.filter((g) => g.path === '/v1/traces').flatMap((g) => (JSON.parse(g.body) as { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: { name: string }[] }[] }[] }).resourceSpans);
    assert.ok(spans.length > 0, 'the spans were posted to <endpoint>/v1/traces');
    assert.deepEqual(new Set(spans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((x) => x.name)))), new Set(['hiwar.call', 'hiwar.turn']));
    assert.ok(spans.every((r) => r.resource.attributes.some((a) => a.key === 'service.name' && a.value.stringValue === 'my-bank-bot')));
    assert.equal(tracingActive(), false, 'shut down: the process records nothing more');
  } finally {
    collector.close();
  }
});

test('a collector that is down: the lost spans are a warn line of your log naming the collector, not silence', async () => {
  // A port nobody listens on: taken, then closed.
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const endpoint = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((r) => probe.close(r));
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) });
  const tracing = await startTracing({ logger, env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
  const trace = new CallTrace({ call: { callId: 'CA10', provider: 'twilio', parameters: {} } });
  trace.onEvent({ type: 'ended', reason: 'caller hung up' });
  // The batch goes out on its own (every 2 s) and fails while the server runs, not only at shutdown.
  await until(() => lines.length > 0, 'the failed export in the log', 30_000);
  await tracing.shutdown();
  const said = lines.filter((l) => /tracing: the OpenTelemetry SDK failed/.test(String(l.msg)));
  assert.equal(said.length, 1, JSON.stringify(lines));
  assert.equal(said[0]!.level, 40);
  assert.equal(said[0]!.url, `${endpoint}/v1/traces`);
  assert.match(String(said[0]!.err), /ECONNREFUSED|connect|export/i);
  assert.doesNotMatch(String(said[0]!.err), /"stack"|\n\s+at /, 'the message, not the exception\'s JSON with its stack');
});
