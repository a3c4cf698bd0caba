/**
 * `createAgentServer` on its embedded sandbox (no service key) hears the phrases of the agents it
 * serves, as `hiwar serve` does: `agent`'s from the start, and those of an agent `agentFor`
 * chooses before that agent's first call. The sandbox's recognizer knows a closed set of phrases;
 * a server that taught it only `sandbox.phrasebook` never heard a caller say an intent's example.
 * Whole calls on the generic PCM stream (docs/telephony.md), the caller's lines voiced by another
 * sandbox: audio the server's sandbox did not make itself.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { defineTool } from '../../src/llm/types.ts';
import { handoff } from '../../src/session/handoff.ts';
import { createAgentServer, type AgentServerApp, type ServerEvent } from '../../src/server/index.ts';
import type { Agent } from '../../src/session/agent.ts';
import type { CallReport, SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { telephonyRoutes } from '../../transports/telephony/index.ts';
import { pcmGateway } from '../cluster/pcm-gateway.ts';
import { pad, runSandbox, voiced } from '../helpers/sandbox.ts';
import { FarEnd, quietAfter } from '../telephony/far-end.ts';
import { waitFor } from './phone.ts';

// The embedded sandbox, never a key from the developer's shell.
delete process.env.HIWAR_API_KEY;

// A loaded machine can make the sandbox's first synthesis slow.
const common = { instructions: 'متجر ورد', voice: { voice_id: 'ar-hijazi-female-1', firstAudioTimeoutMs: 20_000 }, outOfServiceLine: 'الخدمة غير متاحة.' };

/** Reached by a handoff only: its phrase is in no intent of the agent a call starts with. */
const orders: Agent = {
  ...common,
  name: 'orders',
  tools: [defineTool({ name: 'order_status', description: 'Where an order is', parameters: z.object({}), execute: () => ({ status: 'shipped' }) })],
  intents: [{ name: 'status', examples: ['أين طلبي'], tool: { name: 'order_status' }, reply: 'طلبك في الطريق.' }],
};
const shop: Agent = { ...common, name: 'shop', greeting: 'أهلًا بك في متجر الورد.', handoffs: [orders], intents: [{ name: 'hours', examples: ['متى تفتحون'], reply: 'نفتح من التاسعة.' }] };
const florist: Agent = { ...common, name: 'florist', greeting: 'أهلًا بك عند بائع الورد.', intents: [{ name: 'delivery', examples: ['هل توصلون الورد'], reply: 'نعم، نوصل في نفس اليوم.' }] };

/** The caller's lines, by text, padded with a phone line's silence. */
const lines = new Map<string, Int16Array>();
before(async () => {
  const voice = await runSandbox();
  for (const t of ['أين طلبي', 'متى تفتحون', 'هل توصلون الورد']) lines.set(t, pad(await voiced(voice.client, t, 16000, 'ar-najdi-male-2'), 16000, 0.2, 1.5));
  await voice.close();
});

const apps: AgentServerApp[] = [];
/** The calls' clock: the stall-free one, as every whole call in a test's process (docs/testing.md). */
const clock = new SteadyScaledClock(1);
after(async () => {
  for (const app of apps) await app.close();
  clock.stop();
});

/** A server on the embedded sandbox, on the PCM stream; its events and its log lines (warnings) kept. */
async function serve(options: Parameters<typeof createAgentServer>[0]) {
  const logs: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (logs.push(...String(chunk).split('\n').filter(Boolean)), done()) });
  const app = await createAgentServer({ ...options, open: true, clock, plugins: [telephonyRoutes({ media: { clock } })], logger: createLogger('warn', sink) });
  apps.push(app);
  const events: ServerEvent[] = [];
  app.events$.subscribe((e) => events.push(e));
  const { url } = await app.listen({ port: 0 });
  return { app, events, logs, url };
}

/**
 * One call to `to`: after the greeting the caller says each of `says` and waits for an answer,
 * then hangs up. Resolves with the call's report: its turns say what was heard and answered.
 */
async function call(server: { url: string; events: ServerEvent[] }, callId: string, to: string, ...says: string[]): Promise<CallReport> {
  const far = new FarEnd(`${server.url.replace(/^http/, 'ws')}/telephony/pcm?rate=16000&call_id=${callId}&to=${encodeURIComponent(to)}`, pcmGateway(), clock);
  await far.start();
  try {
    await quietAfter(far, 0.5); // the greeting
    for (const say of says) {
      const before = far.played;
      await far.say(lines.get(say)!);
      // An answer is the proof the line became a turn; the limit only ends a broken build's wait
      // (the report's turns then say it was not heard).
      await far.until(() => far.played > before + 0.3, 30_000).catch(() => {});
      await quietAfter(far, 0);
    }
  } finally {
    far.hangup();
  }
  const ended = () => server.events.find((e): e is Extract<ServerEvent, { type: 'call_ended' }> => e.type === 'call_ended' && e.call.callId === callId);
  await waitFor(() => !!ended(), `call ${callId} to end`);
  return ended()!.report!;
}

/** The turns from the caller's first on, as text (none when the caller was never heard). */
function exchange(report: CallReport): string[] {
  const first = report.turns.findIndex((t) => t.role === 'user');
  return first < 0 ? [] : report.turns.slice(first).map((t) => `${t.role}: ${t.text}`);
}

test("createAgentServer({ agent }) offline: the caller is heard saying the agent's intent examples, and those of the agents in its handoffs", async () => {
  const server = await serve({ agent: shop });
  const report = await call(server, 'shop-1', '+966920000001', 'متى تفتحون');
  assert.deepEqual(exchange(report), ['user: متى تفتحون', 'agent: نفتح من التاسعة.'], 'the intent example was heard and its intent answered');
  assert.ok(server.logs.some((l) => /starting the embedded sandbox, voicing 2 phrases/.test(l)), `the start says what it voices (shop's and orders')\n${server.logs.join('\n')}`);
});

test('createAgentServer({ agentFor }) offline: an agent chosen for a call is taught before its first call, once', async () => {
  const server = await serve({ agentFor: (c) => (c.to === '+966920000002' ? florist : shop) });
  // Two calls to the florist at once: both wait for the one voicing of its phrase.
  const [first, second] = await Promise.all([call(server, 'florist-1', '+966920000002', 'هل توصلون الورد'), call(server, 'florist-2', '+966920000002')]);
  assert.deepEqual(exchange(first), ['user: هل توصلون الورد', 'agent: نعم، نوصل في نفس اليوم.'], 'the florist heard its own phrase');
  assert.equal(second.agent, 'florist');
  const shopCall = await call(server, 'shop-2', '+966920000001', 'متى تفتحون');
  assert.deepEqual(exchange(shopCall), ['user: متى تفتحون', 'agent: نفتح من التاسعة.'], 'another agent chosen later is taught too');
  const voicing = server.logs.filter((l) => /chosen for a call: voicing/.test(l));
  assert.equal(voicing.length, 2, `one voicing line per distinct agent\n${server.logs.join('\n')}`);
  assert.match(voicing[0]!, /agent \\?"florist\\?".*voicing 1 phrase /);
  assert.match(voicing[1]!, /agent \\?"shop\\?".*voicing 2 phrases/, "shop's phrase and those of its handoffs");
});

test('a handoff to an agent no handoffs list: warned of by event and log line naming Agent.handoffs, its phrases taught before its first turn', async () => {
  // The desk hands to `orders` from a tool without listing it: offline, "أين طلبي" was never taught.
  const desk: Agent = {
    ...common,
    name: 'desk',
    greeting: 'أهلًا بك في المكتب.',
    tools: [defineTool({ name: 'to_orders', description: 'To the orders desk', parameters: z.object({}), execute: () => handoff(orders, { carry: 'none' }) })],
    intents: [{ name: 'orders', examples: ['متى تفتحون'], tool: { name: 'to_orders' }, reply: 'أحولك إلى الطلبات.' }],
  };
  const sessionEvents: SessionEvent[] = [];
  const server = await serve({
    agent: desk,
    wrapSessions: (inner) => async (t) => {
      const session = await inner(t);
      session.events$.subscribe((e) => sessionEvents.push(e));
      return session;
    },
  });
  const report = await call(server, 'desk-1', '+966920000001', 'متى تفتحون', 'أين طلبي');
  assert.deepEqual(report.handoffs.map((h) => `${h.from}>${h.to}`), ['desk>orders']);
  assert.deepEqual(exchange(report), ['user: متى تفتحون', 'agent: أحولك إلى الطلبات.', 'user: أين طلبي', 'agent: طلبك في الطريق.'], 'the caller was heard by orders after the handoff');
  assert.deepEqual(sessionEvents.filter((e) => e.type === 'handoff_unlisted'), [{ type: 'handoff_unlisted', from: 'desk', to: 'orders', teaching: true }]);
  const warning = server.logs.find((l) => /handed the call to/.test(l));
  assert.match(warning ?? '', /agent \\?"desk\\?" handed the call to \\?"orders\\?", which no Agent\.handoffs of this call lists.*teaching them now.*add it to desk's handoffs/, server.logs.join('\n'));
});
