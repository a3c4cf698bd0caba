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
