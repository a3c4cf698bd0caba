/** `/metrics` as a user scrapes it: what each counter's labels say. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServerMetrics } from '../../src/server/metrics.ts';

test("a tool or hook that threw counts as source=agent, and the help line says so (it named stt, tts, llm and transport only)", async () => {
  const m = new ServerMetrics({ defaultMetrics: false });
  m.observe('twilio', { type: 'error', source: 'agent', kind: 'hook', message: 'onEnter threw an error', fatal: false });
  const text = await m.text();
  assert.match(text, /^hiwar_errors_total\{source="agent",fatal="false"\} 1$/m);
  assert.match(text, /^# HELP hiwar_errors_total Session errors, by source \(stt, tts, llm, transport, agent: a tool or hook that threw\) and fatality$/m);
  assert.doesNotMatch(text, /hiwar_service_errors_total\{/, "an agent's error is not the service's");
});
