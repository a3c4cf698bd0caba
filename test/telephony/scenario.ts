import assert from 'node:assert/strict';
import { assertVoiceStoppedAtCut, type FarEnd } from './far-end.ts';
import { agentTurns, waitFor, type Served, type ServedCall } from './serve.ts';

/**
 * One whole call through a platform's protocol, checked end to end: greeting and an answer in
 * the platform's format, playout acknowledged no further than the platform played, DTMF reaching
 * the call, a barge-in that makes the server send the platform's interrupt and keep in history
 * only what was heard, and a hang-up that frees the call.
 */
export async function wholeCall(s: Served, far: FarEnd, callId: string, lines: { balance: Int16Array }): Promise<ServedCall> {
  await far.start();
  await waitFor(() => s.calls.some((c) => c.transport.call.callId === callId), 'the call started');
  const call = s.calls.find((c) => c.transport.call.callId === callId)!;
  await waitFor(() => agentTurns(call).length >= 1, 'greeting played');
  await far.say(lines.balance);
  await waitFor(() => agentTurns(call).some((t) => /رصيد/.test(t.text)), 'the answer');
  const frames = far.said.filter((x) => x.type === 'audio') as { pcm: Int16Array }[];
  assert.ok(frames.length > 50, 'agent audio arrived in the platform format');
  assert.ok(frames.every((f) => f.pcm.length === far.proto.rate / 50), 'every frame is 20 ms');
  assert.ok(far.agentAudio.filter((f) => f.some((v) => Math.abs(v) > 2000)).length > 20, 'it is speech');
  assert.ok(far.said.some((x) => x.type === 'mark'), 'playout checkpoints were sent');
  assert.ok(call.transport.output.position() > 1, 'playout acknowledged');
  assert.ok(call.transport.output.position() <= far.played + 0.001, 'never more heard than played');

  // Key 2 asks the demo agent to block the card: the key reaches the agent, and its long answer
  // is the one the caller then cuts off.
  far.dtmf('2');
  far.dtmf('#');
  await waitFor(() => call.transportEvents.some((e) => e.type === 'dtmf' && e.digit === '2'), 'DTMF reached the call');
  await waitFor(() => call.events.some((e) => e.type === 'user_turn' && e.source === 'dtmf'), 'the key reached the agent');
  await waitFor(() => call.events.some((e) => e.type === 'agent_chunk' && /بطاقتك/.test(e.text)), 'the long answer started');
  const before = far.played;
  await waitFor(() => far.played > before + 1, 'the caller heard part of it');
  await far.say(lines.balance);
  await waitFor(() => agentTurns(call).some((t) => t.interrupted && /بطاقتك/.test(t.text)), 'the answer was cut off', undefined, () => story(call));
  await assertVoiceStoppedAtCut(far);
  const cut = agentTurns(call).find((t) => t.interrupted && /بطاقتك/.test(t.text))!;
  assert.ok(cut, 'the long answer was the one cut off');
  assert.ok(cut.heardText.length > 0 && cut.heardText.length < cut.text.length, `heard "${cut.heardText}" of "${cut.text}"`);
  assert.ok(cut.text.startsWith(cut.heardText));
  assert.ok(call.transport.output.position() <= far.played + 0.001, 'what was cleared did not count as heard');

  far.hangup();
  await waitFor(() => call.report !== undefined && s.server.calls.active === 0, 'the call ended and was freed');
  return call;
}

/** The call's session events in brief, for a failure message: what happened instead. */
function story(call: ServedCall): string {
  return call.events
    .filter((e) => e.type !== 'metrics' && e.type !== 'line_metrics')
    .map((e) => `${e.type}${'kind' in e ? `:${String(e.kind)}` : ''}${'state' in e ? `:${e.state}` : ''}${'text' in e ? ` "${String(e.text).slice(0, 30)}"` : ''}${'interrupted' in e ? ` interrupted=${e.interrupted}` : ''}${'message' in e ? ` ${String(e.message)}` : ''}${'reason' in e ? ` ${String(e.reason)}` : ''}`)
    .slice(-40)
    .join('\n  ');
}
