/**
 * The session against the live readings of the TTS socket's `isFinal`
 * (docs/service-behaviour.md#where-a-generation-ends-on-the-text-to-speech-socket): set on
 * intermediate audio batches too, with the documented empty end message after them or without
 * it. (The spec's reading, isFinal only at the end, is the sandbox's default: scenarios.test.ts
 * runs the same barge-in, heard-text and fallback checks against it.) Chunk boundaries, heard
 * text, barge-in and the HTTP fallback must hold under each.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ScriptedLlm } from '../../src/llm/index.ts';
import callCentre, { intents } from '../../agents/call-centre/index.ts';
import { ServiceClient } from '../../src/service/index.ts';
import { agentTurns, call, hangUpOnce, pacedOn, SPEED, userTurns } from '../helpers/call.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { runSandbox, voiced, type Running } from '../helpers/sandbox.ts';

const readings = [
  { name: 'isFinal on every batch, then the empty end message', quirks: { ttsIsFinalOnBatches: true } },
  { name: 'isFinal on every batch, no end message', quirks: { ttsIsFinalOnBatches: true, ttsNoEndMarker: true } },
];

for (const reading of readings) {
  describe(`TTS socket: ${reading.name}`, () => {
    let sb: Running;
    let greetingSeconds = 0;
    before(async () => {
      sb = await runSandbox({ keys: [{ key: 'sk-isfinal-main-1', credits: 1e9, concurrency: 16 }], quirks: reading.quirks });
      // Also warms the engines: a first synthesis is slow, and not what these tests are about.
      greetingSeconds = (await voiced(sb.client, callCentre.greeting!, 16000, callCentre.voice.voice_id)).length / 16000;
    });
    after(() => sb.close());
    const client = () => new ServiceClient({ apiKey: 'sk-isfinal-main-1', baseUrl: sb.sandbox.url, maxRetries: 0 });

    test('chunks keep their own audio: a two-chunk greeting is heard whole; a barge-in cuts where the caller was', async () => {
      // 150 ms a token of wall time at speed 3, on the call's clock (pacedOn).
      const clock = new SteadyScaledClock(SPEED);
      const llm = pacedOn(clock, new ScriptedLlm({ intents, fallback: 'عذرًا.', firstTokenDelayMs: 0, tokenDelayMs: 0 }), { firstMs: 150 * SPEED, tokenMs: 150 * SPEED });
      const c = await call(client(), [
        { say: 'بطاقتي ضاعت أرجو إيقافها' },
        { say: 'انتظر من فضلك أريد التحدث مع موظف', bargeInAfterMs: 1500 },
      ], { llm, clock });
      assert.ok(!c.events.some((e) => e.type === 'notice' && /switched to HTTP/.test(e.message)), 'stayed on the socket');
      const greeting = agentTurns(c)[0]!;
      assert.equal(greeting.heardText, greeting.text);
      // All of the greeting's audio was played, not just the batches before a first isFinal.
      const firstLine = c.caller.lines[0]!.start;
      const played = c.caller.agentSpans.filter((s) => s.start < firstLine).reduce((n, s) => n + Math.min(s.end, firstLine) - s.start, 0);
      assert.ok(played > 0.8 * greetingSeconds, `greeting played ${played.toFixed(2)} s of ${greetingSeconds.toFixed(2)} s`);
      const cut = agentTurns(c).find((t) => t.interrupted)!;
      assert.ok(cut, 'one agent turn was interrupted');
      assert.ok(cut.heardText!.length > 0 && cut.heardText!.length < cut.text.length, `heard "${cut.heardText}"`);
      assert.ok(cut.text.startsWith(cut.heardText!), 'heard text is the start of the reply');
      assert.deepEqual(userTurns(c), ['بطاقتي ضاعت أرجو إيقافها', 'انتظر من فضلك أريد التحدث مع موظف']);
      assert.match(c.report.ended, /^transferred/);
    });
  });
}

// The fallback with the spec's isFinal is drilled in scenarios.test.ts (a silent socket); here
// it runs with the live reading.
test('the TTS socket refuses the key: the session says authentication failed, and speaks over HTTP', async () => {
  const sb = await runSandbox({
    keys: [{ key: 'sk-isfinal-main-1', credits: 1e9, concurrency: 16 }],
    faults: { ttsSocketAuthFails: true },
    quirks: { ttsIsFinalOnBatches: true, ttsNoEndMarker: true },
  });
  try {
    // A patient caller: the reply goes sentence by sentence over HTTP, gaps included; it hangs
    // up once the reply has been heard to its end.
    const steps = [{ say: 'متى يفتح الفرع غدا' }, { hangup: true, pauseMs: 6000 }];
    const c = await call(new ServiceClient({ apiKey: 'sk-isfinal-main-1', baseUrl: sb.sandbox.url, maxRetries: 0 }), steps, {
      agent: { greeting: undefined },
      onSession: hangUpOnce((e) => e.type === 'agent_turn'),
    });
    const notice = c.events.find((e) => e.type === 'notice' && /switched to HTTP/.test(e.message));
    assert.ok(notice && notice.type === 'notice' && /authentication failed on the TTS socket \(40101/.test(notice.message), JSON.stringify(notice));
    assert.ok(!/sk-isfinal/.test(JSON.stringify(c.events)), 'the key is in no event');
    const reply = agentTurns(c)[0]!;
    assert.match(reply.text, /الأحد إلى الخميس/);
    assert.equal(reply.heardText, reply.text);
  } finally {
    await sb.close();
  }
});
