/** `/metrics` as a user scrapes it: what each counter's labels say. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServerMetrics } from '../../src/server/metrics.ts';
import { FAILURE_KINDS, type FailureKind } from '../../src/session/failure.ts';
import { AgentServer } from '../../src/server/server.ts';
import { createLogger } from '../../src/session/logger.ts';

test("a tool, task or hook that threw counts as source=agent, and the help line says so (it named stt, tts, llm and transport only)", async () => {
  const m = new ServerMetrics({ defaultMetrics: false });
  m.observe('twilio', { type: 'error', source: 'agent', kind: 'hook', message: 'onEnter threw an error', fatal: false });
  const text = await m.text();
  assert.match(text, /^hiwar_errors_total\{source="agent",kind="hook",fatal="false"\} 1$/m);
  assert.match(text, /^# HELP hiwar_errors_total Session errors, by source \(stt, tts, llm, transport, agent: a tool, task or hook that threw\), kind \(auth, balance, rate, network, timeout, protocol, model, hook, tool, task\) and fatality$/m);
  assert.doesNotMatch(text, /hiwar_service_errors_total\{/, "an agent's error is not the service's");
});

test("hiwar_errors_total tells a tool's failure from a task's, the model's and the service's by kind; a kind outside the set is 'other'", async () => {
  const m = new ServerMetrics({ defaultMetrics: false });
  const error = (source: 'agent' | 'llm' | 'tts', kind: string, fatal = false) => m.observe('twilio', { type: 'error', source, kind: kind as FailureKind, message: `${kind} failed`, fatal });
  error('agent', 'tool');
  error('agent', 'tool');
  error('agent', 'task');
  error('llm', 'timeout');
  error('tts', 'balance', true);
  error('agent', 'a-new-kind');
  const text = await m.text();
  const series = text.split('\n').filter((l) => l.startsWith('hiwar_errors_total{')).sort();
  assert.deepEqual(series, [
    'hiwar_errors_total{source="agent",kind="other",fatal="false"} 1',
    'hiwar_errors_total{source="agent",kind="task",fatal="false"} 1',
    'hiwar_errors_total{source="agent",kind="tool",fatal="false"} 2',
    'hiwar_errors_total{source="llm",kind="timeout",fatal="false"} 1',
    'hiwar_errors_total{source="tts",kind="balance",fatal="true"} 1',
  ]);
  // Every kind a session reports is a label value as it is (the set the help line names).
  for (const kind of FAILURE_KINDS) error('agent', kind);
  const kinds = new Set([...(await m.text()).matchAll(/^hiwar_errors_total\{[^}]*kind="([^"]+)"/gm)].map((x) => x[1]));
  assert.deepEqual([...kinds].sort(), [...FAILURE_KINDS, 'other'].sort());
});

test('a tool that answered after it was given up counts in hiwar_tool_late_results_total, by reason (never the tool: its name is no label)', async () => {
  const m = new ServerMetrics({ defaultMetrics: false });
  const late = (reason: 'timeout' | 'abandoned') => m.observe('twilio', { type: 'tool_late', name: 'get_balance', callId: 'call_1', lateMs: 900, reason, failed: false, reply: 1 });
  late('timeout');
  late('timeout');
  late('abandoned');
  const series = (await m.text()).split('\n').filter((l) => l.startsWith('hiwar_tool_late_results_total{')).sort();
  assert.deepEqual(series, ['hiwar_tool_late_results_total{reason="abandoned"} 1', 'hiwar_tool_late_results_total{reason="timeout"} 2']);
});

test('HIWAR_METRICS_TOKEN (or metricsToken) closes /metrics to a scraper without its bearer token; without one it stays open', async () => {
  const serve = async (o: { metricsToken?: string }, run: (url: string) => Promise<void>) => {
    const server = new AgentServer({ port: 0, logger: createLogger('silent'), sessions: () => Promise.reject(new Error('no calls here')), ...o });
    try {
      await run((await server.listen()).url);
    } finally {
      await server.close();
    }
  };
  const saved = process.env.HIWAR_METRICS_TOKEN;
  try {
    delete process.env.HIWAR_METRICS_TOKEN;
    await serve({}, async (url) => assert.equal((await fetch(`${url}/metrics`)).status, 200));
    await serve({ metricsToken: 'scrape-me' }, async (url) => {
      const refused = await fetch(`${url}/metrics`);
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
      assert.match(await refused.text(), /Authorization: Bearer <HIWAR_METRICS_TOKEN>/);
      assert.equal((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
      const ok = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /hiwar_active_calls/);
      assert.equal((await fetch(`${url}/healthz`)).status, 200, 'the probes stay open');
    });
    process.env.HIWAR_METRICS_TOKEN = 'from-env';
    await serve({}, async (url) => {
      assert.equal((await fetch(`${url}/metrics`)).status, 401);
      assert.equal((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer from-env' } })).status, 200);
    });
  } finally {
    if (saved === undefined) delete process.env.HIWAR_METRICS_TOKEN;
    else process.env.HIWAR_METRICS_TOKEN = saved;
  }
});
