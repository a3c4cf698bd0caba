import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HUMAN_DESK } from '../../agents/call-centre/index.ts';
import { pad, voiced } from '../helpers/sandbox.ts';
import { FarEnd } from './far-end.ts';
import { agentTurns, startServe, waitFor, type Served } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';

/** A Twilio call to the demo agent: the stream URL and the <Connect action> URL from the TwiML. */
async function dial(s: Served, callSid: string) {
  const res = await fetch(`${s.url}/telephony/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `CallSid=${callSid}` });
  const xml = await res.text();
  const far = new FarEnd(/<Stream url="([^"]+)"/.exec(xml)![1]!, twilioProtocol(callSid), s.clock);
  await far.start();
  await waitFor(() => s.calls.some((c) => c.transport.call.callId === callSid), 'the call started');
  const call = s.calls.find((c) => c.transport.call.callId === callSid)!;
  const afterStream = async () => (await fetch(/<Connect action="([^"]+)"/.exec(xml)![1]!, { method: 'POST', body: `CallSid=${callSid}` })).text();
  return { far, call, afterStream };
}

describe('the demo agent on a phone line: keys, transfer, hang-up, DTMF out', () => {
  let s: Served;
  let human: Int16Array;
  let thanks: Int16Array;
  before(async () => {
    s = await startServe({ speed: 2 });
    human = pad(await voiced(s.sandbox.client, 'أريد التحدث مع موظف', 8000), 8000, 0.2, 1.0);
    thanks = pad(await voiced(s.sandbox.client, 'شكرا', 8000), 8000, 0.2, 1.0);
  });
  after(() => s.close());

  test('the caller presses 1 and hears the balance; asks for a person and is transferred by the <Connect action> TwiML', async () => {
    const { far, call, afterStream } = await dial(s, 'CA-keys');
    await waitFor(() => agentTurns(call).length >= 1, 'greeting played');
    far.dtmf('1');
    far.dtmf('#');
    await waitFor(() => call.events.some((e) => e.type === 'user_turn' && e.source === 'dtmf' && /1/.test(e.text)), 'the key reached the agent as a turn');
    await waitFor(() => agentTurns(call).some((t) => /رصيد/.test(t.text)), 'the balance, asked with a key');

    const before = far.played;
    await far.say(human);
    const closed = await far.closed;
    assert.equal(closed.reason, 'transferred', 'the server let go of the stream');
    const reply = agentTurns(call).at(-1)!;
    assert.match(reply.text, /سأحولك/);
    assert.equal(reply.heardText, reply.text, 'the caller heard the whole "transferring you" first');
    assert.ok(far.played > before + 1, 'and it was played on the line');
    assert.equal(await afterStream(), `<?xml version="1.0" encoding="UTF-8"?><Response><Dial>${HUMAN_DESK}</Dial></Response>`);
    await waitFor(() => s.server.calls.active === 0, 'call freed');
    assert.match(await (await fetch(`${s.url}/metrics`)).text(), /hiwar_calls_total\{provider="twilio",outcome="transferred"\} 1/);
  });

  test('after goodbye the agent hangs up; DTMF tones go out in-band', async () => {
    const { far, call, afterStream } = await dial(s, 'CA-bye');
    await waitFor(() => agentTurns(call).length >= 1, 'greeting played');
    const from = far.agentAudio.length;
    await call.transport.sendDtmf('5');
    const tones = far.agentAudio.slice(from).filter((f) => f.some((v) => Math.abs(v) > 4000)).length;
    assert.ok(tones >= 4, `the key's 100 ms tone was played (${tones} loud frames)`);
    await far.say(thanks);
    const closed = await far.closed;
    assert.match(agentTurns(call).at(-1)!.text, /في أمان الله/);
    assert.equal(closed.code, 1000);
    assert.match(await afterStream(), /<Hangup\/>/);
    await waitFor(() => s.server.calls.active === 0, 'call freed');
    assert.match(await (await fetch(`${s.url}/metrics`)).text(), /hiwar_calls_total\{provider="twilio",outcome="agent-hangup"\} 1/);
  });
});
