import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import callCentre from '../../agents/call-centre/index.ts';
import { defineTool, type Llm, type LlmRequest } from '../../src/llm/index.ts';
import { AgentSession } from '../../src/session/agent-session.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { CallControl } from '../../src/transport/types.ts';
import { SimulatedCaller } from '../../src/testing/simulated-caller.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { SPEED } from '../helpers/call.ts';
import { runSandbox, voiced, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => (sb = await runSandbox()));
after(() => sb.close());

async function run(caller: SimulatedCaller, clock: SteadyScaledClock, agent: Partial<typeof callCentre>, llm?: Llm) {
  const session = new AgentSession({ client: sb.client, transport: caller, agent: { ...callCentre, ...agent }, clock, llm, logger: createLogger('silent') });
  const events: SessionEvent[] = [];
  session.events$.subscribe((e) => events.push(e));
  const report = await session.run().finally(() => clock.stop());
  caller.callerHangsUp();
  return { report, events };
}

test('a 48 kHz transport keeps the TTS socket (24 kHz asked, converted at the edge)', async () => {
  const formats: unknown[] = [];
  const openTts = sb.client.openTts.bind(sb.client);
  sb.client.openTts = (opts) => (formats.push(opts.output_format), openTts(opts));
  const clock = new SteadyScaledClock(SPEED);
  const line = 'متى يفتح الفرع غدا';
  const caller = new SimulatedCaller(48000, [{ say: line }], new Map([[line, await voiced(sb.client, line, 48000, 'ar-uae-male-1')]]), clock);
  // A generous socket timeout: this test is about the rate, not about a slow machine.
  const { report, events } = await run(caller, clock, { voice: { ...callCentre.voice, firstAudioTimeoutMs: 30_000 } });
  sb.client.openTts = openTts;
  assert.deepEqual(formats, ['pcm_24000']);
  assert.ok(!events.some((e) => e.type === 'notice' && /HTTP/.test(e.message)), 'no fallback to HTTP');
  assert.deepEqual(report.turns.filter((t) => t.role === 'user').map((t) => t.text), [line]);
  const reply = report.turns.filter((t) => t.role === 'agent')[1]!;
  assert.match(reply.text, /الأحد إلى الخميس/);
  // (Heard whole on a quiet machine; a very loaded one may hang up on the last word.)
  assert.ok(reply.heardText!.length > 10 && reply.text.startsWith(reply.heardText!), `heard "${reply.heardText}"`);
  const spoken = caller.agentSpans.reduce((n, s) => n + s.end - s.start, 0);
  assert.ok(spoken > 2, `${spoken.toFixed(2)} s of agent audio at 48 kHz`);
});

/** A model that transfers when it reads the digits, after saying so. */
class KeypadLlm implements Llm {
  readonly name = 'keypad';
  seen: string[] = [];
  async *stream(req: LlmRequest) {
    const last = req.messages.at(-1)!;
    this.seen.push(String(last.content));
    if (last.role === 'user' && /DTMF: 1234/.test(last.content)) {
      yield { type: 'tool_calls' as const, calls: [{ id: 't1', name: 'transfer_call', arguments: '{"target":"+15550100"}' }] };
    } else if (last.role === 'tool') yield { type: 'text' as const, delta: 'سأحولك الآن إلى قسم البطاقات.' };
    else yield { type: 'text' as const, delta: 'أدخل رقم حسابك ثم اضغط المربع.' };
  }
}

test('DTMF reaches the hook and the model; a tool transfers the call after its reply is heard', async () => {
  const clock = new SteadyScaledClock(SPEED);
  const caller = new SimulatedCaller(16000, [{ dtmf: '1234#' }, { say: 'never said' }], new Map([['never said', new Int16Array(1600)]]), clock, {
    call: { callId: 'CA123', from: '+9665000', parameters: { campaign: 'cards' } },
    agentSpeaksFirst: false,
  });
  const llm = new KeypadLlm();
  const keys: string[] = [];
  let started: CallControl | undefined;
  const transfer = defineTool({
    name: 'transfer_call',
    description: 'Hands the call to a department',
    parameters: z.object({ target: z.string() }),
    execute: async ({ target }, ctx) => {
      await ctx.call!.transfer(target);
      return { transferring: true };
    },
  });
  const { report, events } = await run(caller, clock, {
    greeting: undefined,
    tools: [transfer],
    hooks: { onDtmf: (d) => void keys.push(d), onCallStart: (c) => (started = c) },
  }, llm);
  assert.equal(started?.info.callId, 'CA123');
  assert.equal(started?.info.parameters.campaign, 'cards');
  assert.deepEqual(keys, ['1', '2', '3', '4', '#']);
  assert.deepEqual(events.filter((e) => e.type === 'dtmf').length, 5);
  assert.ok(llm.seen.includes('[DTMF: 1234]'), 'the model read the digits');
  const reply = report.turns.find((t) => t.role === 'agent')!;
  assert.equal(reply.text, 'سأحولك الآن إلى قسم البطاقات.');
  assert.equal(reply.heardText, reply.text, 'the reply was heard before the transfer');
  assert.deepEqual(caller.endedByAgent, { transfer: '+15550100' });
  assert.ok(events.some((e) => e.type === 'call_action' && e.action === 'transfer' && e.ok));
  assert.equal(report.ended, 'transferred to +15550100');
});

test('a tool that hangs up ends the call through the transport; a transport without transfer says so to the model', async () => {
  const clock = new SteadyScaledClock(SPEED);
  const caller = new SimulatedCaller(16000, [{ dtmf: '1234#' }], new Map(), clock, { agentSpeaksFirst: false });
  (caller as { transfer?: unknown }).transfer = undefined;
  const errors: string[] = [];
  const llm: Llm = {
    name: 'hangs-up',
    async *stream(req) {
      const last = req.messages.at(-1)!;
      if (last.role === 'user') yield { type: 'tool_calls', calls: [{ id: 'a', name: 'transfer_call', arguments: '{}' }, { id: 'b', name: 'end_call', arguments: '{}' }] };
      else {
        for (const m of req.messages) if (m.role === 'tool' && /error/.test(m.content)) errors.push(m.content);
        yield { type: 'text', delta: 'مع السلامة.' };
      }
    },
  };
  const tools = [
    defineTool({ name: 'transfer_call', description: '', parameters: z.object({}), execute: async (_a, ctx) => ctx.call!.transfer('+1') }),
    defineTool({ name: 'end_call', description: '', parameters: z.object({}), execute: async (_a, ctx) => ctx.call!.hangup('goodbye said') }),
  ];
  const { report } = await run(caller, clock, { greeting: undefined, tools }, llm);
  assert.match(errors.join(), /cannot transfer/);
  assert.equal(report.ended, 'goodbye said');
  assert.deepEqual(caller.endedByAgent, { hangup: 'goodbye said' });
  assert.equal(report.turns.at(-1)!.heardText, 'مع السلامة.');
});
