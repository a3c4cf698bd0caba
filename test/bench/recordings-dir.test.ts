/**
 * Where the benches find the real recordings: the tests' rule (test/helpers/recordings.ts),
 * HIWAR_AUDIO_DIR, else the nearest `shared/audio` folder above the repository, so a bench run
 * from a git worktree or from the compiled test tree (.tmp/…/bench) finds the same folder as one
 * run from the checkout itself. The rule, the folder's layout and what the recordings are:
 * docs/testing.md ("The real recordings the tests and benches read") and docs/sandbox.md ("Real
 * recordings for the recognizer bench").
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { audioDir } from '../../bench/amd-set.ts';
import { recordingsDir, sharedAudioAbove } from '../helpers/recordings.ts';

test('the nearest shared/audio above a folder: from a main checkout, a worktree and the compiled test tree alike', () => {
  const top = mkdtempSync(join(tmpdir(), 'hiwar-recordings-'));
  try {
    const shared = join(top, 'work', 'shared', 'audio');
    mkdirSync(shared, { recursive: true });
    for (const from of ['work/main/bench', 'work/wt/newcomer/bench', 'work/wt/newcomer/.tmp/test-tree-1/bench']) {
      mkdirSync(join(top, from), { recursive: true });
      assert.equal(sharedAudioAbove(join(top, from)), shared, from);
    }
    // A nearer one wins: the walk stops at the first.
    const nearer = join(top, 'work', 'wt', 'shared', 'audio');
    mkdirSync(nearer, { recursive: true });
    assert.equal(sharedAudioAbove(join(top, 'work/wt/newcomer/bench')), nearer);
    assert.equal(sharedAudioAbove(join(top, 'work/main/bench')), shared);
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test("bench/amd-set.ts's audioDir() is the tests' folder: HIWAR_AUDIO_DIR when set, else the one found above the repository", () => {
  const saved = process.env.HIWAR_AUDIO_DIR;
  try {
    delete process.env.HIWAR_AUDIO_DIR;
    // Here the repository may be a worktree or the compiled tree: a fixed path relative to the
    // bench's folder (the old rule) named a folder that is not there.
    assert.equal(audioDir(), recordingsDir());
    process.env.HIWAR_AUDIO_DIR = join(tmpdir(), 'some-recordings');
    assert.equal(audioDir(), join(tmpdir(), 'some-recordings'));
  } finally {
    if (saved === undefined) delete process.env.HIWAR_AUDIO_DIR;
    else process.env.HIWAR_AUDIO_DIR = saved;
  }
});
