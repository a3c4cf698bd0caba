/** `/metrics` as a user scrapes it: what each counter's labels say. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServerMetrics } from '../../src/server/metrics.ts';
import { AgentServer } from '../../src/server/server.ts';
import { createLogger } from '../../src/session/logger.ts';

test("a tool or hook that threw counts as source=agent, and the help line says so (it named stt, tts, llm and transport only)", async () => {
  const m = new ServerMetrics({ defaultMetrics: false });
  m.observe('twilio', { type: 'error', source: 'agent', kind: 'hook', message: 'onEnter threw an error', fatal: false });
  const text = await m.text();
  assert.match(text, /^hiwar_errors_total\{source="agent",fatal="false"\} 1$/m);
  assert.match(text, /^# HELP hiwar_errors_total Session errors, by source \(stt, tts, llm, transport, agent: a tool or hook that threw\) and fatality$/m);
  assert.doesNotMatch(text, /hiwar_service_errors_total\{/, "an agent's error is not the service's");
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
