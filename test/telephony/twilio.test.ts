import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pad, voiced } from '../helpers/sandbox.ts';
import { FarEnd } from './far-end.ts';
import { agentTurns, startServe, waitFor, type Served } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';

const SPEED = 2;

/** The webhook a Twilio number calls, answered with TwiML: the stream URL and its parameters. */
async function answerCall(s: Served, callSid: string): Promise<{ streamUrl: string; action: string; params: Record<string, string> }> {
  const res = await fetch(`${s.url}/telephony/twilio`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ CallSid: callSid, From: '+966500000001', To: '+966110000000', Direction: 'inbound' }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /xml/);
  const xml = await res.text();
  const streamUrl = /<Stream url="([^"]+)"/.exec(xml)?.[1] ?? '';
  const action = /<Connect action="([^"]+)"/.exec(xml)?.[1] ?? '';
  const params = Object.fromEntries([...xml.matchAll(/<Parameter name="([^"]+)" value="([^"]+)"\/>/g)].map((m) => [m[1]!, m[2]!]));
  return { streamUrl: streamUrl.replace(/&amp;/g, '&'), action: action.replace(/&amp;/g, '&'), params };
}

async function dial(s: Served, callSid: string): Promise<{ far: FarEnd; proto: ReturnType<typeof twilioProtocol>; action: string }> {
  const { streamUrl, action, params } = await answerCall(s, callSid);
  assert.match(streamUrl, /^ws:\/\/.+\/telephony\/twilio\/stream\/[\w-]{40,}$/);
  const proto = twilioProtocol(callSid, params);
  const far = new FarEnd(streamUrl, proto, s.clock);
  await far.start();
  return { far, proto, action };
}

describe('Twilio Media Streams against hiwar serve', () => {
  let s: Served;
  let balance: Int16Array;
  let lostCard: Int16Array;
  before(async () => {
    s = await startServe({ speed: SPEED });
    balance = pad(await voiced(s.sandbox.client, 'كم رصيدي', 8000), 8000, 0.2, 1.0);
    lostCard = pad(await voiced(s.sandbox.client, 'بطاقتي ضاعت', 8000), 8000, 0.2, 1.0);
  });
  after(() => s.close());

  test('a call: TwiML answer, greeting and answer in mu-law with marks, DTMF reaches the agent, the caller hangs up', async () => {
    const { far, proto, action } = await dial(s, 'CA0001');
    await waitFor(() => s.calls.length === 1, 'the call started');
    const call = s.calls[0]!;
    assert.equal(call.transport.call.callId, 'CA0001');
    assert.equal(call.transport.call.from, '+966500000001');
    assert.equal(call.transport.call.parameters.To, '+966110000000');
    await waitFor(() => agentTurns(call).length >= 1, 'greeting played');
    await far.say(balance);
    await waitFor(() => agentTurns(call).length >= 2, 'the answer');
    assert.match(agentTurns(call)[1]!.text, /رصيد/);
    const media = far.said.filter((x) => x.type === 'audio');
    assert.ok(media.length > 50, 'agent audio came as media messages');
    for (const m of media) assert.equal((m as { pcm: Int16Array }).pcm.length, 160, 'every frame is 20 ms of 8 kHz mu-law');
    assert.equal(proto.wrongSid, 0, 'every message names the stream');
    assert.ok(far.said.some((x) => x.type === 'mark'), 'marks sent for playout');
    const loud = far.agentAudio.filter((f) => f.some((v) => Math.abs(v) > 2000)).length;
    assert.ok(loud > 20, 'the agent audio is speech, not silence');
    assert.ok(call.transport.output.position() > 1, 'playout acknowledged by marks');
    assert.ok(call.transport.output.position() <= far.played + 0.001, 'never more heard than the platform played');

    far.dtmf('5');
    await waitFor(() => call.transportEvents.some((e) => e.type === 'dtmf' && e.digit === '5'), 'DTMF reached the call');

    far.hangup();
    await waitFor(() => s.server.calls.active === 0 && call.report !== undefined, 'the call ended');
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    assert.match(metrics, /hiwar_calls_total\{provider="twilio",outcome="caller-hangup"\} 1/);
    assert.match(metrics, /hiwar_turns_total\{provider="twilio"\} [1-9]/);
    assert.match(metrics, /hiwar_turn_stage_seconds_count\{stage="voice_to_voice",turn="spoken"\} [1-9]/);
    // Twilio asks the <Connect action> URL when the stream ends: nothing decided, so it hangs up.
    const next = await fetch(action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallSid=CA0001' });
    assert.match(await next.text(), /<Hangup\/>/);
  });

  test('barge-in: the platform gets clear, marks echoed by the clear are not taken as played, history keeps what was heard', async () => {
    const { far } = await dial(s, 'CA0002');
    await waitFor(() => s.calls.some((c) => c.transport.call.callId === 'CA0002'), 'the call started');
    const call = s.calls.find((c) => c.transport.call.callId === 'CA0002')!;
    await waitFor(() => agentTurns(call).length >= 1, 'greeting played');
    void far.say(lostCard);
    await waitFor(() => call.events.some((e) => e.type === 'agent_chunk' && /بطاقتك/.test(e.text)), 'the long answer started');
    const before = far.played;
    await waitFor(() => far.played > before + 1.5, 'the caller heard part of it');
    await far.say(balance);
    await waitFor(() => agentTurns(call).some((t) => t.interrupted), 'the answer was cut off');
    assert.ok(far.clears >= 1, 'the platform was told to clear its buffer');
    const cut = agentTurns(call).find((t) => t.interrupted)!;
    assert.ok(cut.heardText.length > 0 && cut.heardText.length < cut.text.length, `heard "${cut.heardText}" of "${cut.text}"`);
    assert.ok(cut.text.startsWith(cut.heardText));
    assert.ok(call.transport.output.position() <= far.played + 0.001, 'the echoes of cleared marks did not count as played');
    await waitFor(() => agentTurns(call).some((t) => /رصيد/.test(t.text)), 'the new question answered');
    far.hangup();
    await waitFor(() => s.server.calls.active === 0, 'the call ended');
  });

  test('malformed, duplicated and out-of-order frames leave the call and the server healthy; a caller vanishing mid-reply frees the call', async () => {
    const { far, proto } = await dial(s, 'CA0003');
    await waitFor(() => s.calls.some((c) => c.transport.call.callId === 'CA0003'), 'the call started');
    const call = s.calls.find((c) => c.transport.call.callId === 'CA0003')!;
    far.send({ text: 'not json at all' });
    far.send({ text: '{"event":"media","media":{"payload":42}}' });
    far.send({ text: '{"event":"dtmf","dtmf":{"digit":"XYZ"}}' });
    far.send({ text: '[1,2,3]' });
    far.send({ binary: new Uint8Array([1, 2, 3, 4]) });
    far.send({ text: '{"event":"mark","mark":{"name":"forged"}}' });
    const frame = new Int16Array(160);
    await waitFor(() => far.seq > 10, 'some audio sent');
    far.send(proto.audio(frame, far.seq)); // a duplicate of the last frame
    far.send(proto.audio(frame, far.seq - 5)); // a frame far too late
    await waitFor(() => agentTurns(call).length >= 1, 'greeting played despite the junk');
    assert.ok(call.transport.stats.invalid >= 5, `invalid counted: ${call.transport.stats.invalid}`);
    assert.ok(call.transport.stats.duplicates + call.transport.stats.late >= 2);
    const health = await fetch(`${s.url}/healthz`);
    assert.equal(health.status, 200);
    void far.say(lostCard);
    await waitFor(() => call.events.some((e) => e.type === 'agent_chunk' && /بطاقتك/.test(e.text)), 'the reply started');
    const heard = far.played;
    await waitFor(() => far.played > heard + 0.5, 'the reply is playing');
    far.vanish();
    await waitFor(() => call.report !== undefined && s.server.calls.active === 0, 'the call was freed');
    assert.equal(s.connections(), 0, 'no socket left');
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
  });
});
