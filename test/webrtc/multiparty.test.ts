import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { voiced } from '../helpers/sandbox.ts';
import { runSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.ts';
import { rms, startWebRtcServer, until } from '../helpers/webrtc-server.ts';
import { WeriftPeer } from '../helpers/werift-peer.ts';

let sandbox: SandboxProcess;
let line: Int16Array;

before(async () => {
  // The service in a process of its own, as deployed (and as in barge-in.test.ts): this process
  // runs the product and both peers in real time, and a sandbox here took the CPU they needed.
  sandbox = await runSandboxProcess();
  line = await voiced(sandbox.client, 'كم رصيدي', 48000);
});
after(() => sandbox?.close());

test('multi-party: a supervisor hears both sides, takes over, and the caller then hears the supervisor', async () => {
  const server = await startWebRtcServer(sandbox.client, { agent: { greeting: 'أهلًا بك.' } });
  const peers: WeriftPeer[] = [];
  try {
    const { token, room } = await server.token();
    const caller = await WeriftPeer.join(server.url, token);
    peers.push(caller);
    const supervisor = await WeriftPeer.join(server.url, (await server.token({ room, role: 'supervisor' })).token);
    peers.push(supervisor);
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
    peers.length = 0; // they leave as peers do; the drop below is for a failed check
    await caller.leave();
    await supervisor.leave();
    await until(() => server.plugin.rooms === 0, 'the room to close');
    assert.deepEqual(await server.plugin.resources(), { workers: 1, routers: 0, transports: 0, producers: 0, consumers: 0 });
  } finally {
    // A failed check must not leave a peer's packet timer holding the test process open.
    for (const p of peers) await p.drop();
    await server.close();
  }
});
