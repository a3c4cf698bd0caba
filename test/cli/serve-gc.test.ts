/** `hiwar serve --gc`: the choice of the collector's threads and the workers' command line (src/cli/serve-gc.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/cli/args.ts';
import { gcMode, gcThreads, hasSingleThreadedGc, loneWorkerNeeded, workerExecArgv } from '../../src/cli/serve-gc.ts';

describe('--gc', () => {
  it('reads single, parallel and auto (the default); anything else is a usage error naming the flag', () => {
    assert.equal(gcMode(undefined, 'usage'), 'auto');
    for (const m of ['single', 'parallel', 'auto'] as const) assert.equal(gcMode(m, 'usage'), m);
    for (const bad of ['', 'Single', 'threads', '1']) assert.throws(() => gcMode(bad, 'usage'), (e: unknown) => e instanceof UsageError && /--gc must be "single", "parallel" or "auto"/.test(e.message));
  });

  it('auto is single-threaded only where two or more workers have a CPU each and no more', () => {
    const cases: [workers: number, cpus: number, expected: 'single' | 'parallel'][] = [
      [1, 1, 'parallel'], // one process: V8's default, it would have to be forked
      [1, 8, 'parallel'],
      [2, 2, 'single'],
      [2, 1, 'single'],
      [4, 4, 'single'],
      [2, 4, 'parallel'], // two spare cores for the helper threads
      [3, 16, 'parallel'],
    ];
    for (const [w, c, expected] of cases) assert.equal(gcThreads('auto', w, c), expected, `${w} workers on ${c} CPUs`);
    assert.equal(gcThreads('single', 1, 16), 'single');
    assert.equal(gcThreads('parallel', 8, 2), 'parallel');
  });

  it("sets the flag on the workers' command line once, keeping the primary's other flags in order", () => {
    assert.deepEqual(workerExecArgv(['--import', 'tsx', '--max-old-space-size=4096'], 'single'), ['--import', 'tsx', '--max-old-space-size=4096', '--single-threaded-gc']);
    assert.deepEqual(workerExecArgv(['--single-threaded-gc', '--enable-source-maps'], 'single'), ['--enable-source-maps', '--single-threaded-gc']);
    assert.deepEqual(workerExecArgv(['--single_threaded_gc', '--enable-source-maps', '--no-single-threaded-gc'], 'parallel'), ['--enable-source-maps']);
    assert.deepEqual(workerExecArgv([], 'parallel'), []);
  });

  it('one process forks a lone worker only for an explicit --gc single it was not started with', () => {
    assert.equal(hasSingleThreadedGc(['--single-threaded-gc']), true);
    assert.equal(hasSingleThreadedGc(['--single_threaded_gc']), true);
    assert.equal(hasSingleThreadedGc(['--single-threaded-gc', '--no-single-threaded-gc']), false);
    assert.equal(hasSingleThreadedGc([]), false);
    assert.equal(loneWorkerNeeded('single', []), true);
    assert.equal(loneWorkerNeeded('single', ['--single-threaded-gc']), false, 'node --single-threaded-gc … serve: already in effect');
    assert.equal(loneWorkerNeeded('auto', []), false);
    assert.equal(loneWorkerNeeded('parallel', []), false);
  });
});
