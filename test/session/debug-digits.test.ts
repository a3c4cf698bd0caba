/**
 * A card number said aloud reached the debug log's `caller turn` line whole, where the same digits
 * keyed on the keypad were kept out. A run of 4 digits or more in a spoken turn is logged as
 * `[N digits]`, in any script and said as number words too; `logKeys` shows it. The session test
 * runs a call on the sandbox (its recognizer writes back what it voiced) through `AgentSession`'s
 * public options, with a debug logger.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { redactDigitRuns } from '../../src/session/digit-redaction.ts';
import { createLogger } from '../../src/session/logger.ts';
import { runCall } from '../../src/testing/run-call.ts';
import callCentre from '../../agents/call-centre/index.ts';
import { call } from '../helpers/call.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

test('runs of 4 digits or more are hidden in any script, spaced or dashed, or said as number words; shorter numbers and words stay', () => {
  const cases: [string, string][] = [
    ['رقم بطاقتي 4111 1111 1111 1111 لو سمحت', 'رقم بطاقتي [16 digits] لو سمحت'],
    ['رقم بطاقتي ٤١١١-١١١١-١١١١-١١١١', 'رقم بطاقتي [16 digits]'],
    ['رقم الهوية ۱۲۳۴۵۶۷۸۹۰', 'رقم الهوية [10 digits]'],
    ['الرقم السري أربعة واحد واحد ستة', 'الرقم السري [4 digits]'],
    ['جوالي صفر خمسة خمسة يعني واحد اتنين تلاتة اربعة خمسة ستة سبعة', 'جوالي [10 digits]'],
    ['الحساب A41111111 تمام', 'الحساب A[8 digits] تمام'],
    ['أبي أحول خمسة وعشرين ريال', 'أبي أحول خمسة وعشرين ريال'],
    ['رقمي دبل خمسة ستة', 'رقمي دبل خمسة ستة'],
    ['عندي 3 أسئلة عن 120 ريال', 'عندي 3 أسئلة عن 120 ريال'],
    ['أريد معرفة رصيد حسابي', 'أريد معرفة رصيد حسابي'],
    ['رقمي 0551234567، صح؟', 'رقمي [10 digits]، صح؟'],
    ['المبلغ ١٢٬٥٠٠ ريال', 'المبلغ [5 digits] ريال'],
  ];
  for (const [said, logged] of cases) assert.equal(redactDigitRuns(said), logged, said);
});

let sb: Running;
before(async () => {
  sb = await runSandbox();
});
after(() => sb.close());

const debugLines = () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(...chunk.toString().trim().split('\n').map((l: string) => JSON.parse(l))), cb()) });
  return { lines, logger: createLogger('debug', sink as never) };
};

test("runCall (hiwar/testing, as `hiwar demo`'s call) follows HIWAR_LOG_KEYS=1 as a session does, and its logKeys option overrides it", async () => {
  const said = 'رقم بطاقتي ٤١١١ ١١١١ ١١١١ ١١١١';
  const byEnv = debugLines();
  const off = debugLines();
  const before = process.env.HIWAR_LOG_KEYS;
  process.env.HIWAR_LOG_KEYS = '1';
  try {
    // The sessions read the variable as they start, before the first await of the calls ends.
    await Promise.all([
      runCall(callCentre, [{ say: said }], { client: sb.client, logger: byEnv.logger, progress: false }),
      runCall(callCentre, [{ say: said }], { client: sb.client, logger: off.logger, logKeys: false, progress: false }),
    ]);
  } finally {
    if (before === undefined) delete process.env.HIWAR_LOG_KEYS;
    else process.env.HIWAR_LOG_KEYS = before;
  }
  const turn = (lines: Record<string, unknown>[]) => String(lines.find((l) => l.msg === 'caller turn')?.text);
  assert.match(turn(byEnv.lines), /[٤4][١1]{3}/, 'HIWAR_LOG_KEYS=1: the digits as heard (they were hidden: simulateCall turned logKeys off)');
  assert.match(turn(off.lines), /\[16 digits\]/, 'logKeys: false: hidden despite the variable');
});

test('a spoken card number: the debug `caller turn` line has [16 digits], the event and the report keep the words; logKeys shows them', async () => {
  const at = () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(...chunk.toString().trim().split('\n').map((l: string) => JSON.parse(l))), cb()) });
    return { lines, logger: createLogger('debug', sink as never) };
  };
  const said = 'رقم بطاقتي ٤١١١ ١١١١ ١١١١ ١١١١';
  const hidden = at();
  const shown = at();
  const [c] = await Promise.all([
    call(sb.client, [{ say: said }], { logger: hidden.logger }),
    call(sb.client, [{ say: said }], { logger: shown.logger, logKeys: true }),
  ]);
  const heard = c.events.find((e) => e.type === 'user_turn');
  assert.ok(heard && heard.type === 'user_turn' && /[٤4]/.test(heard.text), `the turn as heard keeps its digits: ${JSON.stringify(heard)}`);
  const turn = hidden.lines.find((l) => l.msg === 'caller turn');
  assert.equal(turn?.text, redactDigitRuns(heard.text));
  assert.match(String(turn?.text), /\[16 digits\]/);
  const text = hidden.lines.map((l) => JSON.stringify(l)).join('\n');
  assert.ok(!/[٤4]111/.test(text), `no run of the card's digits anywhere in the debug log: ${text}`);
  assert.equal(shown.lines.find((l) => l.msg === 'caller turn')?.text, heard.text, 'logKeys: as heard');
});
