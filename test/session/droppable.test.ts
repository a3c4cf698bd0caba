// runTask's promise contract, under Node's default --unhandled-rejections=throw in a child process
// (the test runner's own handlers would hide a crash): a rejection nobody handles, of the promise
// or of any chained off it, is dropped; whoever awaits or catches it still gets it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runNode } from '../helpers/processes.ts';

const DROPPABLE = new URL('../../src/session/droppable.ts', import.meta.url).href;

test('a DroppablePromise and every promise chained off it reject only for whoever handles them', async () => {
  const script = `
    const { DroppablePromise } = await import(${JSON.stringify(DROPPABLE)});
    const failing = () => DroppablePromise.of(Promise.reject(new Error('task broke')));
    const seen = [];
    failing();
    failing().then(() => seen.push('then ran'));
    failing().then((r) => r).then(() => seen.push('second then ran')).finally(() => seen.push('finally'));
    failing().finally(() => seen.push('finally alone'));
    await failing().then(() => 1).catch((e) => seen.push('caught: ' + e.message));
    try { await failing().then((r) => r); } catch (e) { seen.push('awaited: ' + e.message); }
    seen.push('fulfilled: ' + (await DroppablePromise.of(Promise.resolve(2)).then((v) => v * 2)));
    await new Promise((r) => setTimeout(r, 50));
    console.log(JSON.stringify(seen.sort()));
  `;
  const child = await runNode(['--unhandled-rejections=throw', '--import', 'tsx', '--input-type=module', '-e', script]);
  assert.equal(child.code, 0, `a dropped rejection ended the process:\n${child.stderr}`);
  assert.deepEqual(JSON.parse(child.stdout.trim().split('\n').pop()!), ['awaited: task broke', 'caught: task broke', 'finally', 'finally alone', 'fulfilled: 4']);
});

// Promise.all, race, any build a plain Promise of their own: runTask's droppability does not reach
// it, and nothing in hiwar can (the combinator is the global Promise's). What docs/agents.md tells
// the user to do instead is checked here: each remedy keeps the process up, the bare one does not.
const GUARDED = new URL('../../src/session/guarded.ts', import.meta.url).href;

async function runDropping(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `
    const { DroppablePromise } = await import(${JSON.stringify(DROPPABLE)});
    const { guarded } = await import(${JSON.stringify(GUARDED)});
    // runTask's promises: one task that fails, one refused (a second task while one runs).
    const failing = () => DroppablePromise.of(Promise.reject(new Error('task broke')));
    const refused = () => DroppablePromise.of(Promise.reject(new Error('runTask: task b is still running')));
    const done = () => DroppablePromise.of(new Promise((r) => setTimeout(() => r({ ok: true }), 5)));
    const seen = [];
    ${body}
    await new Promise((r) => setTimeout(r, 50));
    console.log(JSON.stringify(seen));
  `;
  return runNode(['--unhandled-rejections=throw', '--import', 'tsx', '--input-type=module', '-e', script]);
}

test('Promise.all or race over runTask promises, dropped, ends the process: the combinator is a promise of its own', async () => {
  const all = await runDropping(`void Promise.all([done(), refused()]);`);
  assert.notEqual(all.code, 0, 'Promise.all of a dropped refusal');
  assert.match(all.stderr, /task b is still running/);
  const race = await runDropping(`void Promise.race([failing(), new Promise((r) => setTimeout(r, 1000))]);`);
  assert.notEqual(race.code, 0, 'Promise.race of a dropped failure');
  assert.match(race.stderr, /task broke/);
});

test("the documented ways to drop a combinator over runTask keep the process up: a catch, allSettled, or an async hook's await (its failure a hook event)", async () => {
  const child = await runDropping(`
    void Promise.all([done(), refused()]).catch(() => seen.push('caught'));
    void Promise.race([failing(), done()]).then(() => seen.push('raced'), () => seen.push('race caught'));
    void Promise.allSettled([done(), failing()]).then((r) => seen.push(r.map((x) => x.status).join(',')));
    // A hook that awaits the combinator: the session runs hooks through guarded(), which reports
    // the rejection as an error event instead of leaving it unhandled.
    guarded('onEnter', async () => { await Promise.all([failing(), done()]); }, (hook, err) => seen.push(hook + ' threw: ' + err.message));
  `);
  assert.equal(child.code, 0, `a handled combinator ended the process:\n${child.stderr}`);
  assert.deepEqual(JSON.parse(child.stdout.trim().split('\n').pop()!).sort(), ['caught', 'fulfilled,rejected', 'onEnter threw: task broke', 'race caught']);
});
