import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { defineTool } from '../../src/llm/types.ts';
import type { Agent } from '../../src/session/agent.ts';
import {
  agentPhrases,
  expectAgentSaid,
  expectHeard,
  expectNoErrors,
  expectNoToolCall,
  expectToolCall,
  runCall,
  scenarioFromIntents,
  startTestSandbox,
  TESTING_DEFAULTS,
  type TestSandbox,
} from '../../src/testing/index.ts';
import { voicingLine } from '../../src/sandbox/voicing-line.ts';
import { progressOf, untaught } from '../../src/testing/progress.ts';

/** A user's agent as plain data: one tool, two intents (one of them keys). */
const florist: Agent = {
  name: 'florist',
  instructions: 'متجر ورد',
  greeting: 'أهلًا بك في متجر الورد.',
  voice: { voice_id: 'ar-hijazi-female-1' },
  outOfServiceLine: 'الخدمة غير متاحة.',
  tools: [
    defineTool({
      name: 'order_status',
      description: 'Where an order is',
      parameters: z.object({ order: z.string() }),
      execute: ({ order }) => ({ order, status: 'shipped' }),
    }),
  ],
  intents: [
    { name: 'status', examples: ['أين طلبي', '[DTMF: 1]'], tool: { name: 'order_status', args: () => ({ order: 'A-17' }) }, reply: 'طلبك في الطريق.' },
    { name: 'hours', examples: ['متى تفتحون'], reply: 'نفتح من التاسعة.' },
  ],
};

let sandbox: TestSandbox;
before(async () => {
  sandbox = await startTestSandbox();
});
after(() => sandbox.close());

test("the agent's phrases are its spoken intent examples; a default call says one of each", () => {
  assert.deepEqual(agentPhrases(florist), ['أين طلبي', 'متى تفتحون']);
  assert.deepEqual(scenarioFromIntents(florist)?.steps, [{ say: 'أين طلبي' }, { say: 'متى تفتحون' }, { hangup: true }]);
  assert.equal(scenarioFromIntents({ ...florist, intents: [] }), null);
});

test('bad input is refused before anything starts, saying what is wrong', async () => {
  await assert.rejects(runCall({ name: 'x' } as Agent, [{ hangup: true }]), /runCall: the first argument is not an Agent \(missing instructions, voice: \{ voice_id \}, outOfServiceLine\)/);
  await assert.rejects(runCall(florist, [{ say: '' }]), /^Error: runCall script: steps\.0\.say: /);
  await assert.rejects(runCall(florist, [{ press: '1' } as never]), /runCall script: steps\.0: not a step; a step is /);
  await assert.rejects(runCall(florist, { steps: [{ hangup: true }], sampleRate: 44100 } as never), /runCall script: sampleRate: must be 8000 or 16000/);
  await assert.rejects(runCall(florist, [{ hangup: true }], { speed: TESTING_DEFAULTS.maxSpeed + 1 }), RangeError);
  await assert.rejects(runCall(florist, [{ hangup: true }], { sandbox, client: sandbox.client }), /a sandbox or a client, not both/);
  await assert.rejects(sandbox.learn(['أين طلبي'], ['no-such-voice']), /no voice no-such-voice in the sandbox/);
});

test('a call against a shared sandbox: phrases taught in the caller voice, the typed result, assertions that fail with what happened', async () => {
  const events: string[] = [];
  const said: string[] = [];
  const call = await runCall(florist, [{ say: 'أين طلبي' }, { hangup: true }], { sandbox, onEvent: (e) => events.push(e.type), progress: (l) => said.push(l) });
  // The shared sandbox was started before: only the voicing of the two phrases it did not know is said.
  assert.equal(said.length, 1, said.join('\n'));
  assert.match(said[0]!, /^voicing 2 phrases for the sandbox's recognizer in ar-uae-male-1 \(.*\)…$/);

  // Taught in the voice this caller speaks with, not in every voice (a fifth of the work).
  assert.ok(sandbox.knows('متى تفتحون', 'ar-uae-male-1'));
  assert.ok(!sandbox.knows('متى تفتحون', 'ar-najdi-male-2'));

  assert.equal(expectHeard(call, 'طلبي'), 'أين طلبي');
  const tool = expectToolCall(call, 'order_status', { order: 'A-17' });
  assert.deepEqual(tool, { name: 'order_status', args: { order: 'A-17' }, result: { order: 'A-17', status: 'shipped' } });
  expectNoToolCall(call, 'end_call');
  assert.equal(expectAgentSaid(call, /في الطريق/).text, 'طلبك في الطريق.');
  expectNoErrors(call);
  assert.deepEqual(
    call.turns.map((t) => t.role),
    ['agent', 'user', 'agent'],
  );
  assert.equal(call.ended, 'caller hung up');
  assert.equal(call.endedByAgent, undefined);
  assert.deepEqual(call.callerLines.map((l) => l.text), ['أين طلبي']);
  assert.ok(call.metrics.length >= 1 && call.metrics.some((m) => (m.voiceToVoiceMs ?? 0) > 0), 'the reply was timed');
  assert.deepEqual(events, call.events.map((e) => e.type), 'onEvent saw every event');
  assert.equal(Buffer.from(call.recording().subarray(0, 4)).toString(), 'RIFF');

  // A failed expectation names what the call did instead.
  assert.throws(() => expectToolCall(call, 'order_status', { order: 'B-2' }), (err: Error) => err.name === 'AssertionError' && err.message.includes('tools called: order_status({"order":"A-17"})'));
  assert.throws(() => expectAgentSaid(call, 'وداعًا'), /it said:\n {2}- أهلًا بك في متجر الورد\.\n {2}- طلبك في الطريق\./);
  assert.throws(() => expectHeard(call, 'متى'), /it heard:\n {2}- أين طلبي/);
  assert.throws(() => expectNoToolCall(call, 'order_status'), /expected no call of tool order_status/);
});

test("a placed call's variables: runCall fills {name} in the greeting and instructions and hands them to the tools; an agent using one not given is refused before the call", async () => {
  const seen: Record<string, string>[] = [];
  const reminder: Agent = {
    ...florist,
    name: 'reminder',
    instructions: 'ذكّر {name} بموعده.',
    greeting: 'مرحبًا {name}، نذكرك بموعدك {when}.',
    tools: [defineTool({ name: 'order_status', description: 'Where an order is', parameters: z.object({ order: z.string() }), execute: (_a, ctx) => (seen.push({ ...ctx.call!.info.parameters }), { status: 'shipped' }) })],
  };
  // Before: the greeting said "{name}" to the callee, and no option could give the variables.
  await assert.rejects(
    runCall(reminder, [{ hangup: true }], { sandbox, progress: false }),
    (err: Error) => err.name === 'TypeError' && err.message === `runCall: agent "reminder" uses {name}, {when} in its greeting or instructions: give them in the options' variables ({ variables: { name: '…', when: '…' } }), as a placed call carries them`,
  );
  await assert.rejects(runCall(reminder, [{ hangup: true }], { sandbox, variables: { name: 'خالد' } }), /uses \{when\} in its greeting .*\{ variables: \{ when: '…' \} \}/);
  const call = await runCall(reminder, [{ say: 'أين طلبي' }, { hangup: true }], { sandbox, variables: { name: 'خالد', when: 'غدًا' } });
  assert.equal(call.agentTurns[0]?.text, 'مرحبًا خالد، نذكرك بموعدك غدًا.');
  assert.ok(!call.agentTurns.some((t) => t.text.includes('{')), call.agentTurns.map((t) => t.text).join(' | '));
  assert.deepEqual(seen, [{ name: 'خالد', when: 'غدًا' }]);
});

test('a call on its own sandbox says what it does before the call starts: the sandbox starting, the phrases voiced', async () => {
  const log: string[] = [];
  const call = await runCall(florist, [{ hangup: true }], { progress: (l) => log.push(`progress: ${l}`), onEvent: (e) => log.push(`event: ${e.type}`) });
  assert.equal(call.ended, 'caller hung up');
  const first = log.findIndex((l) => l.startsWith('event: '));
  assert.ok(first > 0, log.join('\n'));
  // Both lines come before anything of the call, in the order the steps run.
  assert.deepEqual(
    log.slice(0, first).map((l) => l.replace(/ \(.*$/, '')),
    ['progress: starting the embedded sandbox…', "progress: voicing 2 phrases for the sandbox's recognizer in ar-uae-male-1"],
  );
  assert.ok(!log.slice(first).some((l) => l.startsWith('progress: ')), 'nothing said once the call runs');
});

test('progress: the default writes a named line on stderr; false says nothing', () => {
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    progressOf(undefined)('starting the embedded sandbox…');
    progressOf(false)('not this');
  } finally {
    process.stderr.write = write;
  }
  assert.deepEqual(written, ['hiwar/testing: starting the embedded sandbox…\n']);
  assert.match(voicingLine(1, ['ar-uae-male-1'], undefined), /^voicing 1 phrase for .* in ar-uae-male-1 \(.*HIWAR_SANDBOX_RENDER_CACHE=DIR keeps them on disk\)…$/);
  assert.match(voicingLine(3, ['a', 'b'], '/tmp/lines'), /^voicing 3 phrases .* in 2 voices \(.*kept in \/tmp\/lines\)…$/);
  assert.equal(untaught([' أين طلبي ', 'أين طلبي', '', 'متى'], ['v1', 'v2'], (p, v) => p === 'متى' || v === 'v1'), 1, 'trimmed, each once, unknown in some voice');
});
