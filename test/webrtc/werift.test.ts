import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runSandbox, voiced, type Running } from '../helpers/sandbox.ts';
import { startWebRtcServer, type WebRtcServer } from '../helpers/webrtc-server.ts';
import { WeriftPeer } from '../helpers/werift-peer.ts';

let sandbox: Running;
let line: Int16Array;

const rms = (pcm: Int16Array[]) => {
  let sum = 0;
  let n = 0;
  for (const f of pcm) for (const v of f) (sum += v * v), n++;
  return n ? Math.sqrt(sum / n) : 0;
};
const until = async (cond: () => boolean, what: string, timeoutMs = 30_000) => {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

before(async () => {
  sandbox = await runSandbox();
  line = await voiced(sandbox.client, 'كم رصيدي', 48000);
});
after(() => sandbox?.close());

test('multi-party: a supervisor hears both sides, takes over, and the caller then hears the supervisor', { timeout: 90_000 }, async () => {
  const server = await startWebRtcServer(sandbox.client, { agent: { greeting: 'أهلًا بك.' } });
  try {
    const { token, room } = await server.token();
    const caller = await WeriftPeer.join(server.url, token);
    const supervisor = await WeriftPeer.join(server.url, (await server.token({ room, role: 'supervisor' })).token);
    await until(() => server.host.calls[0]?.events.some((e) => e.type === 'agent_turn') ?? false, 'the greeting');
    caller.say(line);
    await until(() => server.host.calls[0]!.events.some((e) => e.type === 'agent_turn' && /رصيد/.test(e.text)), 'the answer');
    await until(() => server.host.calls[0]!.events.filter((e) => e.type === 'state').at(-1)?.type === 'state' && (server.host.calls[0]!.events.filter((e) => e.type === 'state').at(-1) as { state: string }).state === 'listening', 'the agent back to listening');
    const userTurn = server.host.calls[0]!.events.find((e) => e.type === 'user_turn');
    assert.equal(userTurn?.type === 'user_turn' && userTurn.text, 'كم رصيدي');

    // The caller heard the agent; the supervisor heard the agent and the caller (speech, not silence).
    assert.ok(caller.from('agent').packets.length > 50);
    assert.ok(rms(caller.from('agent').pcm) > 300, `agent level at the caller ${rms(caller.from('agent').pcm)}`);
    assert.ok(rms(supervisor.from('agent').pcm) > 300);
    assert.ok(supervisor.from('caller').packets.length > 50);
    assert.ok(rms(supervisor.from('caller').pcm) > 100, `caller level at the supervisor ${rms(supervisor.from('caller').pcm)}`);
    assert.equal(caller.from('caller').packets.length, 0, 'the caller does not get their own voice back');
    // Both live peers see the session: captions reach the supervisor too.
    await supervisor.sig.waitFor('call', (n) => n.data.type === 'agent_turn');

    // A supervisor cannot speak before taking over; then the agent leaves the floor.
    const early = await supervisor.sig.request('createTransport', { direction: 'send' });
    const opus = { mimeType: 'audio/opus', payloadType: 111, clockRate: 48000, channels: 2, parameters: {}, rtcpFeedback: [] };
    await assert.rejects(
      supervisor.sig.request('produce', { transportId: early.id, kind: 'audio', rtpParameters: { codecs: [opus], encodings: [{ ssrc: 1 }] } }),
      /only after taking the call over/,
    );
    await supervisor.sig.request('takeover', {});
    const left = await caller.sig.waitFor('agentLeft');
    assert.match(left.data.reason, /supervisor/);
    assert.match(server.host.calls[0]!.report!.ended, /supervisor/);
    const agentPackets = caller.from('agent').packets.length;
    await supervisor.startSending();
    supervisor.say(line);
    await until(() => caller.from('supervisor').packets.length > 50, 'the supervisor heard by the caller');
    assert.ok(rms(caller.from('supervisor').pcm) > 100);
    assert.equal(caller.from('agent').packets.length, agentPackets, 'no agent audio after the takeover');
    assert.equal(server.host.calls.length, 1);

    assert.deepEqual([...caller.errors, ...supervisor.errors], []);
    await caller.leave();
    await supervisor.leave();
    await until(() => server.plugin.rooms === 0, 'the room to close');
    assert.deepEqual(await server.plugin.resources(), { workers: 1, routers: 0, transports: 0, producers: 0, consumers: 0 });
  } finally {
    await server.close();
  }
});

test('barge-in over WebRTC: the agent’s packets stop when the caller speaks over it', { timeout: 90_000 }, async () => {
  const greeting = 'مرحبًا بك في خدمة العملاء لدى البنك. يسعدنا أن نساعدك اليوم في كل ما يخص حساباتك وبطاقاتك وتحويلاتك. كيف يمكنني مساعدتك؟';
  const server = await startWebRtcServer(sandbox.client, { agent: { greeting } });
  try {
    const caller = await WeriftPeer.join(server.url, (await server.token()).token);
    await until(() => caller.from('agent').packets.length > 60, 'the greeting to be playing');
    caller.say(line);
    const call = () => server.host.calls[0]!;
    await until(() => call().events.some((e) => e.type === 'interruption' && e.kind === 'confirmed'), 'the barge-in');
    const cutAt = Date.now();
    await until(() => call().events.some((e) => e.type === 'agent_turn'), 'the cut-off greeting turn');
    const greetingTurn = call().events.find((e) => e.type === 'agent_turn');
    assert.ok(greetingTurn?.type === 'agent_turn' && greetingTurn.interrupted, 'the greeting was cut off');
    const output = (call().transport as unknown as { output: { stats: { dropped: number } } }).output;
    assert.ok(output.stats.dropped > 0, 'queued agent packets were dropped');

    // After the cut, the agent's stream goes quiet (at most what was in flight) until the answer,
    // which starts a new talkspurt with the marker bit.
    await until(() => call().events.some((e) => e.type === 'agent_turn' && /رصيد/.test(e.text)), 'the answer');
    const packets = caller.from('agent').packets;
    const afterCut = packets.filter((p) => p.at > cutAt + 150);
    const firstOfAnswer = afterCut[0]!;
    assert.equal(firstOfAnswer.marker, true, 'the answer starts a new talkspurt');
    const idx = packets.indexOf(firstOfAnswer);
    const prev = packets[idx - 1]!;
    assert.ok(firstOfAnswer.at - prev.at > 300, `a gap in the agent's stream after the barge-in (${firstOfAnswer.at - prev.at} ms)`);
    const gapTicks = ((firstOfAnswer.timestamp - prev.timestamp) >>> 0) / 960;
    assert.ok(Number.isInteger(gapTicks) && gapTicks > 10, `RTP timestamps follow the clock over the gap (${gapTicks} frames)`);
    // The greeting, as heard, is shorter than the whole greeting.
    assert.ok(greetingTurn.heardText.length < greeting.length);
    await caller.leave();
    await until(() => server.plugin.rooms === 0, 'the room to close');
  } finally {
    await server.close();
  }
});

test('teardown: 20 joins and leaves leave no transports, producers, consumers or routers in the worker', { timeout: 120_000 }, async () => {
  const server = await startWebRtcServer(sandbox.client, { agent: { greeting: undefined } });
  try {
    for (let i = 0; i < 20; i++) {
      const caller = await WeriftPeer.join(server.url, (await server.token()).token);
      await caller.sig.waitFor('newConsumer', (n) => n.data.source === 'agent');
      const during = await server.plugin.resources();
      // One room: the caller's send and receive transports and the agent's direct transport.
      assert.deepEqual({ ...during, workers: 1 }, { workers: 1, routers: 1, transports: 3, producers: 2, consumers: 2 });
      // Half leave politely, half just drop (a closed tab).
      if (i % 2) await caller.leave();
      else await caller.drop();
      await until(() => server.plugin.rooms === 0, `room ${i} to close`);
    }
    assert.deepEqual(await server.plugin.resources(), { workers: 1, routers: 0, transports: 0, producers: 0, consumers: 0 });
    assert.equal(server.host.calls.length, 20);
    assert.ok(server.host.calls.every((c) => c.report !== undefined), 'every call ended');
  } finally {
    await server.close();
  }
});
