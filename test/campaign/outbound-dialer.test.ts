import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outboundDialer, type CallPlacer } from '../../transports/telephony/campaign/dialer.ts';
import { PlaceCallError, type OutboundCall, type PlaceCallRequest } from '../../transports/telephony/outbound/calls.ts';
import { DialError } from '../../transports/telephony/outbound/types.ts';

const contact = { number: '+966500000001', variables: { name: 'سارة' } };
const dial = (attempt: number) => ({ campaignId: 'c', index: 0, contact, attempt, dialId: `c:0:${attempt}` });

/** The outbound registry's two calls as the dialler uses them: each placed call ends as `ends` says. */
function placer(ends: Partial<OutboundCall> | Error) {
  const asked: PlaceCallRequest[] = [];
  const p: CallPlacer = {
    async placeCall(req) {
      asked.push(req);
      if (ends instanceof Error) throw ends;
      return { id: 'out-1', platform: 'twilio', to: req.to, from: '+15550000000', variables: req.variables ?? {}, status: 'queued', createdAt: '' };
    },
    async outcome(id) {
      return { id, platform: 'twilio', to: contact.number, from: '+15550000000', variables: {}, status: 'completed', createdAt: '', ...(ends as Partial<OutboundCall>) };
    },
  };
  return { p, asked };
}

test('the outbound dialler places the contact with its variables and reads the final outcome', async () => {
  const { p, asked } = placer({ outcome: 'completed', durationS: 61 });
  const r = await outboundDialer(p, { from: '+15550000001', details: async (call) => ({ transcript: `for ${call.id}`, amd: 'human' }) }).dial(dial(1));
  assert.deepEqual(asked, [{ to: '+966500000001', variables: { name: 'سارة' }, from: '+15550000001' }]);
  assert.deepEqual(r, { outcome: 'completed', callId: 'out-1', durationS: 61, transcript: 'for out-1', amd: 'human' });
  assert.equal((await outboundDialer(placer({ outcome: 'busy', status: 'busy' }).p).dial(dial(2))).outcome, 'busy');
  assert.equal((await outboundDialer(placer({ outcome: 'no-answer' }).p).dial(dial(2))).outcome, 'no-answer');
  const failed = await outboundDialer(placer({ outcome: 'failed', error: 'carrier said no' }).p, { details: async () => { throw new Error('no report'); } }).dial(dial(1));
  assert.deepEqual([failed.outcome, failed.error], ['failed', 'carrier said no'], 'a details hook that throws leaves the outcome');
});

test('a request wrong as given is invalid (never retried); a platform refusal is failed (retried)', async () => {
  const invalid = await outboundDialer(placer(new PlaceCallError('missing call variable: amount')).p).dial(dial(1));
  assert.deepEqual(invalid, { outcome: 'invalid', error: 'missing call variable: amount' });
  const refused = await outboundDialer(placer(new DialError('twilio', 503, 'unavailable')).p).dial(dial(1));
  assert.equal(refused.outcome, 'failed');
  assert.match(refused.error!, /twilio refused the call \(HTTP 503\)/);
});
