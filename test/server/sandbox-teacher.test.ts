/**
 * How a running embedded sandbox is taught the phrases of an agent chosen for a call: each phrase
 * voiced once however many calls wait on it, one at a time, and a phrase it cannot learn a
 * warning (tried again by a later call) rather than a failed call. The sandbox's learning is
 * stood in for: what is asserted is what is asked of it and when.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { builtInVoices } from '../../src/sandbox/catalogue.ts';
import { sandboxTeacher } from '../../src/server/sandbox-teacher.ts';
import type { Agent } from '../../src/session/agent.ts';
import { createLogger } from '../../src/session/logger.ts';

const agent = (name: string, examples: string[]): Agent => ({ name, instructions: 'x', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'x', intents: [{ name: 'i', examples, reply: 'x' }] });

/** A sandbox whose learning takes a turn of the event loop and is recorded; `failing` phrases throw once. */
function standIn(failing: string[] = []) {
  const asked: string[] = [];
  let running = 0;
  let most = 0;
  const state = {
    voices: new Map(builtInVoices('').map((v) => [v.record.voice_id, v])),
    async learnPhrase(phrase: string) {
      asked.push(phrase);
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      const i = failing.indexOf(phrase);
      if (i >= 0) {
        failing.splice(i, 1);
        throw new Error('espeak-ng exited with 1');
      }
    },
  };
  return { sandbox: { state } as never, asked, most: () => most };
}

function logs() {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(...String(chunk).split('\n').filter(Boolean)), done()) });
  return { lines, logger: createLogger('warn', sink) };
}

test('phrases it started with are not voiced again; a new agent\'s are, once, one at a time, however many calls wait', async () => {
  const s = standIn();
  const log = logs();
  const teach = sandboxTeacher(s.sandbox, ['أين طلبي'], log.logger);
  const sales = agent('sales', ['أين طلبي', 'أريد عرضًا', 'كم السعر']);
  let settled = 0;
  const calls = [teach(sales, 'c1'), teach(sales, 'c2'), teach(sales, 'c3')].map((p) => p.then(() => settled++));
  assert.equal(settled, 0);
  await Promise.all(calls);
  assert.deepEqual(s.asked, ['أريد عرضًا', 'كم السعر'], 'each new phrase once, in order');
  assert.equal(s.most(), 1, 'one phrase at a time');
  await teach({ ...sales, name: 'sales-copy' }, 'c4');
  assert.equal(s.asked.length, 2, 'known phrases cost nothing, whichever agent names them');
  assert.equal(log.lines.length, 1, log.lines.join('\n'));
  assert.match(log.lines[0]!, /agent \\"sales\\" chosen for a call: voicing 2 phrases for the sandbox's recognizer in 5 voices/);
  assert.match(log.lines[0]!, /"call":"c1"/);
});

test('a phrase it cannot learn is a warning, the call goes on, and a later call tries it again', async () => {
  const s = standIn(['كم السعر']);
  const log = logs();
  const teach = sandboxTeacher(s.sandbox, [], log.logger);
  const sales = agent('sales', ['كم السعر', 'أريد عرضًا']);
  await teach(sales, 'c1');
  assert.deepEqual(s.asked, ['كم السعر', 'أريد عرضًا'], 'the phrase after the failed one is still learnt');
  assert.ok(log.lines.some((l) => /could not learn one of the agent's phrases/.test(l) && /espeak-ng exited with 1/.test(l)), log.lines.join('\n'));
  await teach(sales, 'c2');
  assert.deepEqual(s.asked, ['كم السعر', 'أريد عرضًا', 'كم السعر'], 'tried again, and only it');
  await teach(sales, 'c3');
  assert.equal(s.asked.length, 3, 'learnt the second time');
});
