// Telnyx's and Plivo's status callbacks as their documentation writes them
// (test/fixtures/platforms/{telnyx,plivo}/status-callbacks.json, each naming its pages), read
// through the route's own body parser (JSON for Telnyx, a form for Plivo) into typed outcomes.
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { parseParams } from '../../../transports/telephony/plugin.ts';
import { plivoOutbound, telnyxOutbound } from '../../../transports/telephony/index.ts';
import { platformFixture } from '../fixture-files.ts';

/** The fields the status route reads from a POSTed body of `type`. */
function posted(type: string, body: string): Record<string, string> {
  const req = { method: 'POST', headers: { 'content-type': type } } as unknown as IncomingMessage;
  return parseParams(req, new URL('http://hiwar.test/telephony/outbound/status'), Buffer.from(body));
}

test("Telnyx: the documented call.hangup, and each documented hangup_cause, read as hiwar's outcomes", () => {
  const f = platformFixture('telnyx', 'status-callbacks.json');
  const tx = telnyxOutbound();
  const doc = f.hangupDocumented;
  const ccid = doc.data.payload.call_control_id;
  assert.deepEqual(tx.status(posted('application/json', JSON.stringify(doc))), { status: f.hangupDocumentedOutcome, raw: 'call_rejected', platformCallId: ccid });
  const seen = new Set<string>();
  for (const { hangup_cause, outcome } of f.hangupCauses as { hangup_cause: string; outcome: string }[]) {
    const body = structuredClone(doc);
    body.data.payload.hangup_cause = hangup_cause;
    assert.deepEqual(tx.status(posted('application/json', JSON.stringify(body))), { status: outcome, raw: hangup_cause, platformCallId: ccid }, hangup_cause);
    seen.add(outcome);
  }
  assert.deepEqual([...seen].sort(), ['busy', 'canceled', 'completed', 'failed', 'no-answer'], 'every final outcome is reachable from a documented cause');
  const answered = structuredClone(doc);
  answered.data.event_type = f.answered.event_type;
  answered.data.payload.state = f.answered.state;
  for (const k of ['hangup_cause', 'hangup_source', 'sip_hangup_cause', 'call_quality_stats']) delete answered.data.payload[k];
  assert.deepEqual(tx.status(posted('application/json', JSON.stringify(answered))), { status: f.answered.outcome, raw: 'call.answered', platformCallId: ccid });
  // An event about something else (a machine detection hiwar never asked for, streaming) changes no outcome.
  for (const other of ['call.machine.detection.ended', 'streaming.started']) {
    const body = structuredClone(answered);
    body.data.event_type = other;
    assert.equal(tx.status(posted('application/json', JSON.stringify(body))), undefined, other);
  }
});

test("Plivo: the ring, answer and hangup callbacks with each documented CallStatus read as hiwar's outcomes", () => {
  const f = platformFixture('plivo', 'status-callbacks.json');
  const pl = plivoOutbound();
  const seen = new Set<string>();
  for (const c of f.callbacks as { name: string; body: Record<string, string>; outcome: string; durationS?: number }[]) {
    const update = pl.status(posted('application/x-www-form-urlencoded', new URLSearchParams(c.body).toString()));
    assert.deepEqual(update, { status: c.outcome, raw: c.body.CallStatus, platformCallId: c.body.CallUUID, ...(c.durationS !== undefined ? { durationS: c.durationS } : c.body.Duration ? { durationS: Number(c.body.Duration) } : {}) }, c.name);
    seen.add(c.outcome);
  }
  assert.deepEqual([...seen].sort(), ['answered', 'busy', 'canceled', 'completed', 'failed', 'no-answer', 'ringing']);
  // A status the pages do not list is no update (not a guess).
  assert.equal(pl.status({ CallStatus: 'queued-somewhere', CallUUID: 'x' }), undefined);
});
