import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from '../../src/session/logger.ts';
import { ReportBuilder } from '../../src/session/report.ts';
import { SessionOutput } from '../../src/session/session-output.ts';
import { toolFailure } from '../../src/session/failure.ts';
import type { Clock } from '../../src/transport/clock.ts';

/** A session's output writing to a pino logger at `level`, its JSON lines kept. */
function output(level: string, logKeys = false) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(...chunk.toString().trim().split('\n').map((l: string) => JSON.parse(l))), cb()) });
  const clock = { now: () => 0 } as unknown as Clock;
  const out = new SessionOutput(createLogger(level, sink as never), new ReportBuilder(clock), () => 'bank', logKeys);
  return { lines, out };
}

test("a failure's log line names the agent, as the turn line does, and its notices and debug lines name it the same way", () => {
  const { lines, out } = output('debug');
  out.toolThrew('get_balance', new Error('core banking down'));
  out.notice('speech recognition reconnecting (attempt 1, close 1006)');
  out.emit({ type: 'state', state: 'speaking' });
  const [failure, notice, debug] = lines;
  assert.equal(failure!.msg, "the agent's code threw an error (tool get_balance)");
  assert.equal(failure!.agent, 'bank', 'an operator filters one agent\'s failures by the same field as its turns');
  assert.equal(notice!.agent, 'bank');
  assert.equal(debug!.agent, 'bank');
  assert.ok(lines.every((l) => !('session' in l)), 'one field name for the agent, not two');
});

test("what the agent's own code threw is logged without the caller's long numbers (a card, an account), unless logKeys", () => {
  const thrown = () => new Error('no account 4111 1111 1111 1111 for caller 0501234567, PIN ١٢٣٤');
  const warn = output('warn');
  warn.out.toolThrew('block_card', thrown());
  warn.out.fail('agent', toolFailure('lookup'), false, 'account 123456789 locked');
  const [line, stringLine] = warn.lines;
  assert.equal(line!.level, 40, 'at warn: the level production runs at');
  assert.doesNotMatch(String(line!.err), /4111|0501234567|١٢٣٤/);
  assert.match(String(line!.err), /^no account \[16 digits\] for caller \[10 digits\], PIN \[4 digits\]$/);
  assert.doesNotMatch(String(stringLine!.err), /123456789/, 'a thrown string is redacted too');
  const keys = output('warn', true);
  keys.out.toolThrew('block_card', thrown());
  assert.match(String(keys.lines[0]!.err), /4111 1111 1111 1111/, 'logKeys shows them, for a developer\'s machine');
});

test("a service's failure keeps its figures: only the agent's own code handles callers' numbers", () => {
  const { lines, out } = output('warn');
  out.fail('stt', { kind: 'network', message: 'speech recognition lost its connection (close 1006, reconnects gave up)' }, true, new Error('socket closed 1006 after 30000 ms'));
  assert.equal(lines[0]!.err, 'socket closed 1006 after 30000 ms');
  assert.equal(lines[0]!.agent, 'bank');
});

test("at debug, an agent turn's line says what the caller heard (its long numbers hidden, unless logKeys), not only its length", () => {
  const { lines, out } = output('debug');
  out.emit({ type: 'agent_turn', text: 'رقم بطاقتك 4111 1111 1111 1111، هل أوقفها؟', heardText: 'رقم بطاقتك 4111 1111 1111 1111', interrupted: true, reply: 3 });
  const [line] = lines;
  assert.equal(line!.msg, 'agent turn');
  assert.equal(line!.heardText, 'رقم بطاقتك [16 digits]', 'what reached the caller before the barge-in');
  assert.equal(line!.interrupted, true);
  assert.equal(line!.heard, 'رقم بطاقتك 4111 1111 1111 1111'.length, 'the lengths stay as they were');
  const keys = output('debug', true);
  keys.out.emit({ type: 'agent_turn', text: 'رقمك 4111', heardText: 'رقمك 4111', interrupted: false, reply: 1 });
  assert.equal(keys.lines[0]!.heardText, 'رقمك 4111');
  const info = output('info');
  info.out.emit({ type: 'agent_turn', text: 'أهلًا', heardText: 'أهلًا', interrupted: false, reply: 1 });
  assert.deepEqual(info.lines, [], 'nothing below debug');
});
