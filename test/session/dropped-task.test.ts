/**
 * A hook that starts a task without awaiting it (`void session.runTask(task)`) and a task that
 * throws: nobody catches `runTask`'s promise, so it must be safe to drop. Run in a child process
 * with Node's default `--unhandled-rejections=throw` and no handler of its own (`hiwar serve`
 * installs one; a user's process built on `createAgentServer` or `AgentSession` has none).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runNode } from '../helpers/processes.ts';

const TESTING = new URL('../../src/testing/index.ts', import.meta.url).href;
const AGENT = new URL('../../agents/call-centre/index.ts', import.meta.url).href;
const REPLY = new URL('../../src/pipeline/reply.ts', import.meta.url).href;

test("a task run from a hook and dropped (not awaited, or chained with then and no catch) that throws is one error of kind 'task', a refused one a log line; the process stays up and the next call completes", async () => {
  const script = `
    const { runCall, startTestSandbox } = await import(${JSON.stringify(TESTING)});
    const { callCentre } = await import(${JSON.stringify(AGENT)});
    const { REPLY_DEFAULTS } = await import(${JSON.stringify(REPLY)});
    const sandbox = await startTestSandbox();
    // Asks, then throws on the caller's answer: the promise the hook dropped rejects mid-call.
    const file = { name: 'file', start: () => ({ say: 'ما رقم ملفك؟' }), next: () => { throw new Error('file broke on the answer'); } };
    // And a runTask refused at once (not a task), dropped too: said in the log, not a crash. The
    // failing one is chained the obvious way, with no catch: the chained promise rejects too.
    const dropping = { ...callCentre, name: 'dropping', hooks: { onEnter: (session) => {
      void session.runTask({ name: 'half' });
      session.runTask({ name: 'half' }).then(() => {});
      session.runTask(file).then((r) => console.log('the task ended', r)).then(() => {});
    } } };
    const logger = (await import('pino')).default({ level: 'warn' }, process.stderr);
    const first = await runCall(dropping, [{ say: 'واحد اثنان ثلاثة أربعة' }, { say: 'كم رصيدي' }, { hangup: true }], { sandbox, logger });
    const second = await runCall(callCentre, [{ say: 'كم رصيدي' }, { hangup: true }], { sandbox });
    await sandbox.close();
    // Synthesis falling back to HTTP on a loaded machine is an error event too (recovered): not what this is about.
    const errors = (c) => c.events.filter((e) => e.type === 'error' && !/switched to HTTP/.test(e.message)).map((e) => e.kind + ':' + (e.task ?? e.tool ?? ''));
    const said = (c) => c.agentTurns.map((t) => t.text);
    console.log(JSON.stringify({ recovery: REPLY_DEFAULTS.modelErrorLine, first: { errors: errors(first), said: said(first), ended: first.ended }, second: { errors: errors(second), said: said(second), ended: second.ended } }));
  `;
  const child = await runNode(['--unhandled-rejections=throw', '--import', 'tsx', '--input-type=module', '-e', script], {}, 240_000);
  assert.equal(child.code, 0, `the process ended on the dropped task's failure:\n${child.stderr}`);
  const out = JSON.parse(child.stdout.trim().split('\n').pop()!) as { recovery: string; first: { errors: string[]; said: string[]; ended: string }; second: { errors: string[]; said: string[]; ended: string } };
  assert.deepEqual(out.first.errors, ['task:file'], "one error event, the task's");
  assert.match(child.stderr, /runTask: not a task \(it needs start\(\) and next\(\)\)/, 'the refused runTask is in the log');
  const question = out.first.said.indexOf('ما رقم ملفك؟');
  assert.ok(question >= 0 && out.first.said.indexOf(out.recovery) > question, `the caller heard the recovery line after the task's question: ${out.first.said.join(' | ')}`);
  assert.ok(out.first.said.some((s) => s.includes('12,500')), `the call went on (the balance was answered): ${out.first.said.join(' | ')}`);
  assert.deepEqual(out.second.errors, []);
  assert.ok(out.second.said.some((s) => s.includes('12,500')), `the second call completed: ${out.second.said.join(' | ')}`);
  assert.match(out.second.ended, /caller hung up|hangup/);
});
