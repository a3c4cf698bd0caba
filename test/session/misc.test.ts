import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { concatPcm, silence } from '../../src/audio/pcm.ts';
import { decodeWav, encodeWav } from '../../src/audio/wav.ts';
import { ServiceClient } from '../../src/service/index.ts';
import { AgentSession } from '../../src/session/agent-session.ts';
import { digitsTask } from '../../src/tasks/index.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { createLogger } from '../../src/session/logger.ts';
import { WavFileTransport } from '../../transports/local/wav-file.ts';
import { agentTurns, call } from '../helpers/call.ts';
import { runSandbox, voiced, type Running } from '../helpers/sandbox.ts';

let sb: Running;
const diacritized: string[] = [];
before(async () => {
  sb = await runSandbox({
    diacritize: async (text) => {
      diacritized.push(text);
      return text.replace(/بك/g, 'بِكَ');
    },
  });
});
after(() => sb.close());

test('WAV-file transport: a recorded caller in, the agent’s answer written out', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-wav-'));
  const line = await voiced(sb.client, 'متى يفتح الفرع غدا', 16000, 'ar-uae-male-1');
  writeFileSync(join(dir, 'in.wav'), encodeWav(concatPcm([silence(0.5, 16000), line, silence(0.3, 16000)]), 16000));
  const clock = new SteadyScaledClock(3);
  // The file's caller stays on the line for a fixed tail: long enough for the answer on a loaded
  // machine (9 s at 3x left 3 s of wall time, and CI once cut the answer off).
  const transport = await WavFileTransport.open(join(dir, 'in.wav'), { outPath: join(dir, 'out.wav'), clock, tailMs: 24_000 });
  const session = new AgentSession({ client: sb.client, transport, agent: { ...callCentre, greeting: undefined }, clock, logger: createLogger('silent') });
  const report = await session.run();
  clock.stop();
  await transport.save();
  assert.deepEqual(report.turns.map((t) => t.role), ['user', 'agent']);
  assert.equal(report.turns[0]!.text, 'متى يفتح الفرع غدا');
  const out = decodeWav(readFileSync(join(dir, 'out.wav')));
  const loud = out.samples.filter((s) => Math.abs(s) > 1000).length;
  assert.ok(loud > 16000 * 0.5, 'the answer is in the output file');
});

test('diacritization before synthesis when the agent asks for it; plain text when the service cannot', async () => {
  // Two independent calls on two sandboxes: side by side.
  const plain = await runSandbox();
  try {
    const [c, c2] = await Promise.all([
      call(sb.client, [{ say: 'أريد معرفة رصيد حسابي' }], { agent: { diacritize: true } }),
      call(plain.client, [{ say: 'أريد معرفة رصيد حسابي' }], { agent: { diacritize: true } }),
    ]);
    assert.ok(diacritized.some((t) => t.includes('أهلًا بك')), 'the greeting went through tashkil');
    assert.match(agentTurns(c)[0]!.text, /أهلًا بك/, 'the history keeps the text as written');
    assert.ok(c2.events.some((e) => e.type === 'notice' && /diacritization unavailable/.test(e.message)));
    assert.match(agentTurns(c2)[1]!.text, /12,500/);
  } finally {
    await plain.close();
  }
});

test("logs: HIWAR_LOG_LEVEL=debug's level tells what the session heard and did, turn by turn; info does not", async () => {
  const at = (level: string) => {
    const lines: { msg: string; [k: string]: unknown }[] = [];
    const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(...chunk.toString().trim().split('\n').map((l: string) => JSON.parse(l))), cb()) });
    return { lines, logger: createLogger(level, sink as never) };
  };
  const debug = at('debug');
  const info = at('info');
  const [c] = await Promise.all([
    call(sb.client, [{ say: 'أريد معرفة رصيد حسابي' }], { logger: debug.logger }),
    call(sb.client, [{ say: 'أريد معرفة رصيد حسابي' }], { logger: info.logger }),
  ]);
  const said = debug.lines.find((l) => l.msg === 'caller turn');
  assert.equal(said?.text, 'أريد معرفة رصيد حسابي', JSON.stringify(debug.lines.map((l) => l.msg)));
  assert.equal(said?.agent, callCentre.name);
  const agentLines = debug.lines.filter((l) => l.msg === 'agent turn');
  assert.equal(agentLines.length, agentTurns(c).length, 'one line per agent turn');
  assert.ok(debug.lines.some((l) => l.msg === 'reply started'));
  assert.ok(debug.lines.some((l) => l.msg === 'session ended'));
  assert.ok(!debug.lines.some((l) => /chunk|transcript/.test(l.msg)), 'no line per chunk or interim transcript');
  assert.deepEqual(info.lines.filter((l) => l.level === 20), [], 'nothing at debug level when the level is info');
  assert.ok(!info.lines.some((l) => l.msg === 'caller turn'));
});

test("logs: at debug a key press is logged without its key, a keyed turn and a task's result without their digits, unless logKeys", async () => {
  const at = (level: string) => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(...chunk.toString().trim().split('\n').map((l: string) => JSON.parse(l))), cb()) });
    return { lines, logger: createLogger(level, sink as never) };
  };
  const agent = { greeting: undefined, hooks: { onEnter: (s: AgentSession) => void s.runTask(digitsTask({ kind: 'custom', length: 4, prompt: 'ما رقمك السري؟' })) } };
  const steps = [{ dtmf: '4821#' }, { dtmf: '1' }, { hangup: true }];
  const hidden = at('debug');
  const shown = at('debug');
  const [c] = await Promise.all([call(sb.client, steps, { agent, logger: hidden.logger }), call(sb.client, steps, { agent, logger: shown.logger, logKeys: true })]);
  const ended = c.events.find((e) => e.type === 'task_ended');
  assert.deepEqual(ended && ended.type === 'task_ended' && ended.result, { ok: true, value: '4821' }, 'the task collected the keyed number (the event has it)');
  const text = hidden.lines.map((l) => JSON.stringify(l)).join('\n');
  assert.equal(hidden.lines.filter((l) => l.msg === 'key pressed').length, 6, 'each key press is logged');
  assert.ok(!hidden.lines.some((l) => 'digit' in l), text);
  for (const digits of ['4821', '4 8 2 1', '٤٨٢١']) assert.ok(!text.includes(digits), `${digits} in the log: ${text}`);
  assert.deepEqual(hidden.lines.find((l) => l.msg === 'task ended')?.result, { ok: true });
  const keyed = hidden.lines.find((l) => l.msg === 'caller turn' && l.source === 'dtmf');
  assert.ok(keyed && !('text' in keyed), `a keyed turn without its text: ${JSON.stringify(keyed)}`);
  // Asked for explicitly: the keys and the value are in the log.
  assert.deepEqual(shown.lines.filter((l) => l.msg === 'key pressed').map((l) => l.digit).join(''), '4821#1');
  assert.deepEqual(shown.lines.find((l) => l.msg === 'task ended')?.result, { ok: true, value: '4821' });
});

test('logs: keys are redacted wherever the field appears', async () => {
  const lines: string[] = [];
  let written!: () => void;
  const line = new Promise<void>((r) => (written = r));
  const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(chunk.toString()), written(), cb()) });
  const log = createLogger('info', sink as never);
  log.info({ apiKey: sb.key, config: { apiKey: sb.key }, headers: { 'x-api-key': sb.key } }, 'configured');
  // However long pino takes to hand the line over: the test waits for it, not for a fixed time.
  await line;
  const text = lines.join('');
  assert.match(text, /configured/);
  assert.ok(!text.includes(sb.key), 'key redacted');
});

test('sandbox: the UAE region on its own port takes only UAE keys', async () => {
  const uae = await runSandbox({ keys: [{ key: 'sk-global-key-01' }, { key: 'sk-uae-key-0001', region: 'uae' }], uaePort: 0 });
  try {
    assert.notEqual(new URL(uae.sandbox.uaeUrl).port, new URL(uae.sandbox.url).port);
    const uaeClient = new ServiceClient({ apiKey: 'sk-uae-key-0001', region: 'uae', uaeBaseUrl: uae.sandbox.uaeUrl });
    assert.ok((await uaeClient.listVoices()).length);
    const wrong = new ServiceClient({ apiKey: 'sk-global-key-01', region: 'uae', uaeBaseUrl: uae.sandbox.uaeUrl, maxRetries: 0 });
    await assert.rejects(wrong.listVoices(), /401/);
  } finally {
    await uae.close();
  }
});
