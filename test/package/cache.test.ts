// The package test's shared cache (test/package/cache.ts): its key follows what ships, and a
// directory is filled once however many processes ask for it at once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fillOnce, packageInputs, packageKey } from './cache.ts';

const scratch = mkdtempSync(join(tmpdir(), 'hiwar-package-cache-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A small repository: package.json with its `files`, a source, a shipped doc, a test. */
function repository(): string {
  const root = mkdtempSync(join(scratch, 'repo-'));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'x', files: ['dist/', 'bin/', 'docs/', 'README.md'] }),
    'package-lock.json': '{}',
    'src/index.ts': 'export const a = 1;\n',
    'bin/x.js': '#!/usr/bin/env node\n',
    'docs/README.md': '# Guide\n',
    'README.md': '# x\n',
    'dist/src/index.js': 'export const a = 1;\n',
    'test/a.test.ts': '// a test\n',
    'src/node_modules/y/index.js': '',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test('the key covers what is shipped and what builds dist/, not the tests nor dist/ itself', () => {
  const root = repository();
  assert.deepEqual(packageInputs(root), ['README.md', 'bin/x.js', 'docs/README.md', 'package-lock.json', 'package.json', 'src/index.ts']);
  const key = packageKey(root);
  assert.match(key, /^[0-9a-f]{16}$/);
  assert.equal(packageKey(root), key, 'the same files, the same key');
  writeFileSync(join(root, 'test/a.test.ts'), '// changed\n');
  writeFileSync(join(root, 'dist/src/index.js'), 'export const a = 2;\n');
  assert.equal(packageKey(root), key, 'a test or a stale build is not in the tarball key');
  const changes: [string, string][] = [
    ['src/index.ts', 'export const a = 2;\n'],
    ['docs/README.md', '# Guide, changed\n'],
    ['bin/x.js', '#!/usr/bin/env node\n// changed\n'],
    ['package-lock.json', '{"lockfileVersion":3}'],
    ['src/new.ts', 'export {};\n'],
  ];
  let previous = key;
  for (const [path, text] of changes) {
    writeFileSync(join(root, path), text);
    const now = packageKey(root);
    assert.notEqual(now, previous, `a change to ${path} makes a new key: a stale cache is never used`);
    previous = now;
  }
  rmSync(join(root, 'src/new.ts'));
  assert.notEqual(packageKey(root), previous, 'a removed source too');
});

test("this repository's key covers its shipped files and sources, not its tests", () => {
  // The repository itself, also from the compiled tree of `npm test` (whose files link to it).
  const root = dirname(realpathSync(new URL('../../package-lock.json', import.meta.url)));
  const inputs = packageInputs(root);
  for (const f of ['package.json', 'package-lock.json', 'README.md', 'bin/hiwar.js', 'docs/README.md', 'src/index.ts', 'scripts/build.mjs']) assert.ok(inputs.includes(f), `${f} is an input`);
  assert.deepEqual(inputs.filter((f) => /^(test|bench|examples|dist|node_modules|\.tmp)\//.test(f)), []);
});

test('concurrent callers fill a directory once; the others wait and use it', async () => {
  const dir = join(scratch, 'once');
  let fills = 0;
  const fill = async (d: string) => {
    fills++;
    await new Promise((resolve) => setTimeout(resolve, 200));
    writeFileSync(join(d, 'made'), 'yes');
  };
  const dirs = await Promise.all([fillOnce(dir, fill, 20), fillOnce(dir, fill, 20), fillOnce(dir, fill, 20)]);
  assert.equal(fills, 1);
  assert.deepEqual(dirs, [dir, dir, dir]);
  assert.equal(readFileSync(join(dir, 'made'), 'utf8'), 'yes');
  await fillOnce(dir, fill);
  assert.equal(fills, 1, 'a complete directory is used as it is');
  assert.ok(!existsSync(`${dir}.lock`), 'the lock is released');
});

test('a fill that fails leaves nothing to use; the next caller fills again', async () => {
  const dir = join(scratch, 'failing');
  await assert.rejects(fillOnce(dir, async (d) => (writeFileSync(join(d, 'half'), ''), Promise.reject(new Error('npm install failed')))), /npm install failed/);
  assert.ok(!existsSync(`${dir}.lock`), 'the lock is released');
  await fillOnce(dir, async (d) => writeFileSync(join(d, 'whole'), ''));
  assert.ok(existsSync(join(dir, 'whole')));
  assert.ok(!existsSync(join(dir, 'half')), "the failed fill's leftovers are gone");
});

test("a lock left by a process that died is taken over; a live holder's is waited for", async () => {
  const dead = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => dead.on('exit', resolve));
  const dir = join(scratch, 'orphan');
  mkdirSync(`${dir}.lock`, { recursive: true });
  writeFileSync(join(`${dir}.lock`, 'pid'), String(dead.pid));
  await fillOnce(dir, async (d) => writeFileSync(join(d, 'made'), ''), 20);
  assert.ok(existsSync(join(dir, 'made')));

  const held = join(scratch, 'held');
  mkdirSync(`${held}.lock`, { recursive: true });
  writeFileSync(join(`${held}.lock`, 'pid'), String(process.pid)); // alive: this process
  let filled = false;
  const waiting = fillOnce(held, async () => void (filled = true), 20);
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(filled, false, 'no fill while a live process holds the lock');
  rmSync(`${held}.lock`, { recursive: true });
  await waiting;
  assert.equal(filled, true);
});
