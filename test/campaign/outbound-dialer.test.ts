import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outboundDialer, resultOfCall, type CallPlacer } from '../../transports/telephony/campaign/dialer.ts';
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
  assert.deepEqual(asked, [{ to: '+966500000001', variables: { name: 'سارة' }, reference: 'c:0:1', from: '+15550000001' }], 'the dial id is the call\'s reference: a dead worker\'s call is found by it');
  assert.deepEqual(r, { outcome: 'completed', callId: 'out-1', durationS: 61, transcript: 'for out-1', amd: 'human' });
  assert.equal((await outboundDialer(placer({ outcome: 'busy', status: 'busy' }).p).dial(dial(2))).outcome, 'busy');
  assert.equal((await outboundDialer(placer({ outcome: 'no-answer' }).p).dial(dial(2))).outcome, 'no-answer');
  const failed = await outboundDialer(placer({ outcome: 'failed', error: 'carrier said no' }).p, { details: async () => { throw new Error('no report'); } }).dial(dial(1));
  assert.deepEqual([failed.outcome, failed.error], ['failed', 'carrier said no'], 'a details hook that throws leaves the outcome');
});

test('a request wrong as given is invalid (never retried); a platform refusal or its API out of reach is failed (retried); each says nothing was dialled, and why', async () => {
  const invalid = await outboundDialer(placer(new PlaceCallError('missing call variable: amount')).p).dial(dial(1));
  assert.deepEqual(invalid, { outcome: 'invalid', notPlaced: 'invalid-request', error: 'missing call variable: amount' });
  const refused = await outboundDialer(placer(new DialError('twilio', 503, 'unavailable')).p).dial(dial(1));
  assert.deepEqual([refused.outcome, refused.notPlaced], ['failed', 'platform-refused']);
  assert.match(refused.error!, /twilio refused the call \(HTTP 503\)/);
  // Not reached at all is not a refusal: the message says the call could not be placed.
  const unreached = await outboundDialer(placer(new DialError('twilio', 0, 'could not reach https://api.twilio.com: ECONNREFUSED')).p).dial(dial(1));
  assert.deepEqual([unreached.outcome, unreached.notPlaced], ['failed', 'platform-unreachable']);
  assert.equal(unreached.error, 'the call could not be placed through twilio: could not reach https://api.twilio.com: ECONNREFUSED');
  // Anything else before the platform (a credential missing) dialled nothing either.
  const other = await outboundDialer(placer(new Error('twilio: no auth token (set TWILIO_AUTH_TOKEN, or pass it in the platform\'s options)')).p).dial(dial(1));
  assert.deepEqual([other.outcome, other.notPlaced], ['failed', 'dial-error']);
  // A call the platform took says nothing of the kind.
  assert.equal((await outboundDialer(placer({ outcome: 'failed', error: 'carrier said no' }).p).dial(dial(1))).notPlaced, undefined);
});

test("who answered decides an answered call's outcome: a voicemail or a carrier's announcement is the detector's class, a person or an unclear answer is completed", async () => {
  const session = (c: string, action: 'greeted' | 'voicemail' | 'hangup') => ({ session: { amd: { class: c as 'human', action, decisionMs: 1800 }, transcript: 'agent: مرحبًا سارة', ended: 'x' } });
  const cases: [Partial<OutboundCall>, string, string | undefined][] = [
    [{ outcome: 'completed', durationS: 30, ...session('human', 'greeted') }, 'completed', 'human'],
    [{ outcome: 'completed', ...session('uncertain', 'greeted') }, 'completed', 'uncertain'],
    [{ outcome: 'completed', ...session('machine-voicemail', 'voicemail') }, 'machine-voicemail', 'machine-voicemail'],
    [{ outcome: 'completed', ...session('machine-unavailable', 'hangup') }, 'machine-unavailable', 'machine-unavailable'],
    [{ outcome: 'completed' }, 'completed', undefined],
    [{ outcome: 'busy' }, 'busy', undefined],
  ];
  for (const [ends, outcome, amd] of cases) {
    const r = await outboundDialer(placer(ends).p).dial(dial(1));
    assert.equal(r.outcome, outcome, JSON.stringify(ends));
    assert.equal(r.amd, amd);
    if (ends.session) assert.equal(r.transcript, 'agent: مرحبًا سارة');
  }
  assert.deepEqual(resultOfCall({ id: 'out-9', platform: 'vonage', to: contact.number, from: '+15550000000', variables: {}, status: 'failed', outcome: 'failed', error: 'refused', createdAt: '' }), { outcome: 'failed', callId: 'out-9', error: 'refused' });
});

test("recover: finds the dead worker's call by its dial id, follows the platform until it ends, or says it cannot tell", async () => {
  const base: OutboundCall = { id: 'out-7', platform: 'twilio', to: contact.number, from: '+15550000000', variables: {}, status: 'ringing', createdAt: '', reference: 'c:0:1' };
  const answers: (OutboundCall['status'] | undefined)[] = ['answered', 'completed'];
  const asked: string[] = [];
  const p: CallPlacer = {
    placeCall: async () => base,
    outcome: async () => base,
    byReference: async (ref) => (ref === 'c:0:1' ? base : undefined),
    async ask(id) {
      asked.push(id);
      const status = answers.shift();
      if (!status) return { call: base };
      const final = status === 'completed';
      return { call: { ...base, status, ...(final ? { outcome: 'completed' as const, durationS: 40 } : {}) }, said: { status, raw: status } };
    },
  };
  const d = outboundDialer(p, { recoverPollMs: 1 });
  assert.deepEqual(await d.recover!(dial(1)), { outcome: 'completed', callId: 'out-7', durationS: 40 });
  assert.deepEqual(asked, ['out-7', 'out-7'], 'asked again while the call was going');
  assert.equal(await d.recover!(dial(2)), undefined, 'never placed: nothing to recover');
  const cannot = await d.recover!(dial(1));
  assert.equal(cannot!.outcome, 'failed-unknown');
  assert.match(cannot!.error!, /twilio cannot say how call/);
});
