import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { voiced } from '../helpers/sandbox.ts';
import { runSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.ts';
import { startWebRtcServer, until } from '../helpers/webrtc-server.ts';
import { PeerProcess } from '../helpers/werift-peer-process.ts';

let sandbox: SandboxProcess;
let line: Int16Array;

before(async () => {
  // The service in a process of its own, as deployed: this process runs the product (and the
  // caller), on the real clock; a sandbox here would recognize the caller behind real time when
  // the process is starved, and the product would hear the line late for the rig's sake.
  sandbox = await runSandboxProcess();
  line = await voiced(sandbox.client, 'كم رصيدي', 48000);
});
after(() => sandbox?.close());

// No test-level timeout: a fixed one is wall time, which a loaded machine stretches; each wait
// below is load-scaled (test/helpers/deadline.ts) and names what it waited for.
test('barge-in over WebRTC: the agent’s packets stop when the caller speaks over it', async () => {
  // Long (about 20 s), so the caller's line, said 1.2 s in, is still said over it when this
  // process, the caller's and the sandbox's run many times slower than real time (load 50 on two
  // cores: the line was recognized after a 10 s greeting had ended). On a quiet machine the
  // barge-in cuts it within two seconds, so the length costs nothing there.
  const greeting =
    'مرحبًا بك في خدمة العملاء لدى البنك. يسعدنا أن نساعدك اليوم في كل ما يخص حساباتك وبطاقاتك وتحويلاتك. ' +
    'نود أن نذكرك بأن موظفي البنك لا يطلبون منك أبدًا كلمة المرور أو الرمز السري لبطاقتك. ' +
    'يمكنك أيضًا متابعة رصيدك وتحويلاتك في أي وقت من خلال تطبيق البنك على هاتفك. ' +
    'كيف يمكنني مساعدتك؟';
  const server = await startWebRtcServer(sandbox.client, { agent: { greeting } });
  let joined: PeerProcess | undefined;
  try {
    // The caller in its own process, as on the caller's machine (werift-peer-process.ts).
    const caller = await PeerProcess.join(server.url, (await server.token()).token);
    joined = caller;
    await until(() => caller.from('agent').packets.length > 60, 'the greeting to be playing');
    await caller.say(line);
    const call = () => server.host.calls[0]!;
    // What the call did, in the failure's message: which stage lost the line.
    const story = () => call().events.map((e) => (e.type === 'notice' ? JSON.stringify(e) : 'text' in e && e.text ? `${e.type} ${String(e.text)}` : 'kind' in e ? `${e.type} ${String(e.kind)}` : e.type)).join(' | ');
    // A greeting that ended whole leaves nothing to barge into: fail then, not after the wait.
    const greetingEnded = () => call().events.some((e) => e.type === 'agent_turn' && !e.interrupted);
    await until(() => call().events.some((e) => e.type === 'interruption' && e.kind === 'confirmed') || greetingEnded(), 'the barge-in').catch((err: Error) => assert.fail(`${err.message}; the call's events: ${story()}`));
    assert.ok(!greetingEnded(), `the greeting ended before the caller's line was heard over it; the call's events: ${story()}`);
    const cutAt = Date.now();
    await until(() => call().events.some((e) => e.type === 'agent_turn'), 'the cut-off greeting turn');
    const greetingTurn = call().events.find((e) => e.type === 'agent_turn');
    assert.ok(greetingTurn?.type === 'agent_turn' && greetingTurn.interrupted, 'the greeting was cut off');
    const output = (call().transport as unknown as { output: { stats: { dropped: number } } }).output;
    assert.ok(output.stats.dropped > 0, 'queued agent packets were dropped');

    // After the cut, the agent's stream goes quiet (at most what was in flight: packets that go
    // on from the greeting's last one) until the answer, which starts a new talkspurt with the
    // marker bit after a gap on the stream's own clock. Told apart by RTP positions, not by
    // when packets arrived: on a loaded machine the in-flight packets can arrive late.
    await until(() => call().events.some((e) => e.type === 'agent_turn' && /رصيد/.test(e.text)), 'the answer');
    const packets = caller.from('agent').packets;
    const cut = packets.findIndex((p) => p.at > cutAt);
    const step = (i: number) => ((packets[i]!.timestamp - packets[i - 1]!.timestamp) >>> 0) / 960;
    const idx = packets.findIndex((_, i) => i >= Math.max(cut, 1) && step(i) !== 1);
    assert.ok(cut >= 0 && idx > 0, 'a talkspurt starts after the barge-in');
    const firstOfAnswer = packets[idx]!;
    assert.equal(firstOfAnswer.marker, true, 'the answer starts a new talkspurt');
    assert.ok(!packets.slice(cut, idx).some((p) => p.marker), 'what came between, still the greeting, opens no talkspurt');
    const gapTicks = step(idx);
    assert.ok(Number.isInteger(gapTicks) && gapTicks > 10, `RTP timestamps follow the clock over the gap (${gapTicks} frames)`);
    // The greeting, as heard, is shorter than the whole greeting.
    assert.ok(greetingTurn.heardText.length < greeting.length);
    await caller.leave();
    await until(() => server.plugin.rooms === 0, 'the room to close');
  } finally {
    // A failed check must not leave the caller's packet timer holding the test process open.
    await joined?.drop();
    await server.close();
  }
});
