import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { CallAnalytics } from '../../src/analytics/call-analytics.ts';
import { InProcessAnalytics } from '../../src/analytics/in-process.ts';
import { splitRecording } from '../../src/analytics/channels.ts';
import { LocalFolderStore } from '../../src/analytics/store.ts';
import type { CallSummary } from '../../src/analytics/summary.ts';
import { verifyWebhook } from '../../src/analytics/webhook.ts';
import { agentSessions } from '../../src/server/agent-sessions.ts';
import { AgentServer } from '../../src/server/server.ts';
import { CallTokens } from '../../src/server/tokens.ts';
import { createLogger } from '../../src/session/logger.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { telephonyPlugin } from '../../transports/telephony/index.ts';
import { runSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.ts';
import { balanceCall, callerLine, startReceiver, until, type Receiver } from './harness.ts';

const SECRET = 'whsec-test-0123456789';
let sandbox: SandboxProcess;
let receiver: Receiver;
let dir: string;

before(async () => {
  // The service in a process of its own, as in a deployment: scripts/starve.mjs starves the
  // product's process, not the service's (docs/testing.md, "Starving one run").
  sandbox = await runSandboxProcess();
  receiver = await startReceiver();
  dir = await mkdtemp(join(tmpdir(), 'hiwar-analytics-'));
});
after(async () => {
  await receiver.close();
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

test('without Redis: a served call is recorded, analyzed in-process, and its signed summary reaches the webhook once', async () => {
  // Real-time pace on the stall-free clock, as every whole call in the suite: the sandbox (a
  // process of its own) voices ahead of playout, and a stall of this process, where the server,
  // the far end and the recorder all stand still, is no hole in the recording.
  const clock = new SteadyScaledClock(1);
  const logger = createLogger('silent');
  const store = new LocalFolderStore(dir);
  const runner = new InProcessAnalytics({ client: sandbox.client, store, webhook: { url: receiver.url, secret: SECRET }, logger });
  const analytics = new CallAnalytics({ store, sink: runner, logger });
  const agent = { ...callCentre, greeting: 'أهلًا بك في بنك الواحة.', voice: { ...callCentre.voice, firstAudioTimeoutMs: 20_000 } };
  const server = new AgentServer({
    port: 0,
    logger,
    sessions: analytics.sessions(agentSessions({ client: sandbox.client, agent, logger, clock })),
    onCallEnded: analytics.onCallEnded,
  });
  server.use(telephonyPlugin(server.host, { open: true, logger, media: { clock }, tokens: new CallTokens() }));
  const { url } = await server.listen();
  try {
    await balanceCall(url, 'call-in-process-1', await callerLine(sandbox.client), clock);
    await until(() => receiver.deliveries.length > 0, 'the webhook got the summary', 90_000);
    await analytics.flush();
    await runner.close();
    assert.equal(receiver.deliveries.length, 1, 'delivered exactly once');

    const d = receiver.deliveries[0]!;
    assert.ok(verifyWebhook(d.body, d.headers, SECRET), 'the signature verifies with the shared secret');
    assert.equal(verifyWebhook(d.body, d.headers, 'another-secret'), false);
    assert.equal(verifyWebhook(`${d.body} `, d.headers, SECRET), false, 'a changed body fails');
    const s = JSON.parse(d.body) as CallSummary;
    assert.equal(d.headers['x-hiwar-delivery'], s.jobId);
    assert.equal(s.type, 'call.analyzed');
    assert.equal(s.call.callId, 'call-in-process-1');
    assert.equal(s.call.from, '+971500000001');
    assert.equal(s.diarization, 'ok', `the service told the speakers apart: ${JSON.stringify(s.turns)}`);
    const callerTurns = s.turns.filter((t) => t.role === 'caller');
    const agentTurns = s.turns.filter((t) => t.role === 'agent');
    assert.ok(callerTurns.some((t) => /رصيدي/.test(t.text)), `the caller's question among the caller's turns: ${JSON.stringify(s.turns)}`);
    assert.ok(agentTurns.some((t) => /الواحة/.test(t.text)), `the greeting among the agent's turns: ${JSON.stringify(s.turns)}`);
    assert.ok(agentTurns.some((t) => /رصيد/.test(t.text) && t.start > callerTurns[0]!.start), 'the answer came after the question');
    assert.notEqual(callerTurns[0]!.speaker, agentTurns[0]!.speaker, 'two diarized speakers');
    assert.ok(s.turns.every((t) => t.sentiment && t.gender), 'every turn carries sentiment and gender');
    assert.equal(s.gender.caller, 'male');
    assert.equal(s.gender.agent, 'female');
    assert.ok(s.keywords.length > 0, 'keywords');
    assert.ok(s.minutes && s.minutes.length > 0, 'minutes');
    assert.ok(s.liveTranscript.some((t) => t.role === 'user' && /رصيدي/.test(t.text)), 'the live transcript rides along');
    assert.match(s.summaryAr, /مكالمة من \+971500000001/);
    assert.match(s.summaryAr, /رصيدي/);

    // The recording: both sides, on their own channels, in the store.
    const wav = splitRecording(new Uint8Array(await readFile(s.recording.location)));
    const loud = (pcm: Int16Array) => pcm.reduce((n, v) => n + (Math.abs(v) > 2000 ? 1 : 0), 0) / wav.sampleRate;
    assert.ok(loud(wav.caller) > 0.2 && loud(wav.agent) > 1, 'speech on both channels');
    assert.ok(s.recording.seconds > 3);
    // What the analytics cost is test/analytics/kill.test.ts's: its workers have a key of their own.
  } finally {
    await server.close();
    clock.stop();
  }
});
