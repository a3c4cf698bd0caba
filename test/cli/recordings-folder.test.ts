/**
 * The recordings folder is checked with the other arguments, before a port is looked at or
 * anything starts: one that cannot be written in (a file in its path, no permission) was found
 * at the end of the first call, when that call's recording was lost.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { takenPort } from '../helpers/ports.ts';
import { CliError, ensureWritableFolder, parseCommand } from '../../src/cli/args.ts';
import { checkServeArgs, SERVE_FLAGS, SERVE_USAGE } from '../../src/cli/serve-args.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const ENV = { HIWAR_API_KEY: '', REDIS_URL: '', HIWAR_LOG_LEVEL: 'warn', HIWAR_RECORDINGS_DIR: '', HIWAR_ANALYTICS_WEBHOOK_URL: '' };
/** The user the permission case runs as when this process is root (who may write anywhere). */
const NOBODY = 65534;
let taken: Awaited<ReturnType<typeof takenPort>>;
let port: number;
let dir: string;

before(async () => {
  taken = await takenPort();
  port = taken.port;
  dir = await mkdtemp(join(tmpdir(), 'hiwar-recordings-'));
  // Reachable by the unprivileged user; only `locked` refuses it.
  await chmod(dir, 0o755);
  await writeFile(join(dir, 'a-file'), '');
  await mkdir(join(dir, 'locked'), { mode: 0o555 });
  await chmod(join(dir, 'locked'), 0o555);
});
after(async () => {
  await taken.release();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `hiwar ...args` to its end: its exit code and what it printed. */
async function run(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...ENV, ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((r) => child.once('close', r));
  return { code, out };
}

const serveOnTakenPort = (args: string[], env?: NodeJS.ProcessEnv, cwd?: string) => run(['serve', '--port', String(port), '--analytics', ...args], env, cwd);

function assertRefused(r: { code: number | null; out: string }, says: RegExp): void {
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, says);
  assert.doesNotMatch(r.out, /already taken/, 'the folder is said before the port');
  assert.doesNotMatch(r.out, /starting the embedded sandbox/, 'nothing started');
}

test('--recordings under a file: the flag, the folder and the file in its way', async () => {
  const r = await serveOnTakenPort(['--recordings', join(dir, 'a-file', 'calls')]);
  assertRefused(r, new RegExp(`--recordings ${dir}/a-file/calls: files cannot be written there: ${dir}/a-file is a file, not a folder`));
});

test('--recordings that is a file itself', async () => {
  const r = await serveOnTakenPort(['--recordings', join(dir, 'a-file')]);
  assertRefused(r, new RegExp(`--recordings ${dir}/a-file: files cannot be written there: ${dir}/a-file is a file, not a folder`));
});

test('a folder this user may not write in: permission denied, naming the setting', async () => {
  const target = join(dir, 'locked', 'calls');
  // Root may write anywhere: the check runs as `nobody` for its span, in this process (a child
  // as `nobody` could not read the test runner's private tree to start).
  const root = process.getuid?.() === 0;
  if (root) process.seteuid!(NOBODY);
  try {
    await assert.rejects(ensureWritableFolder(target, `--recordings ${target}`), (e: unknown) => {
      assert.ok(e instanceof CliError, String(e));
      assert.equal(e.message, `--recordings ${target}: files cannot be written there: permission denied (mkdir ${target}) for the user this process runs as`);
      return true;
    });
  } finally {
    if (root) process.seteuid!(0);
  }
});

test('the folder from HIWAR_RECORDINGS_DIR, and the default one, are named as such', async () => {
  const fromEnv = await serveOnTakenPort([], { HIWAR_RECORDINGS_DIR: join(dir, 'a-file') });
  assertRefused(fromEnv, new RegExp(`HIWAR_RECORDINGS_DIR ${dir}/a-file: files cannot be written there`));
  // In a folder where `recordings` is a file.
  const cwd = join(dir, 'a-file-named-recordings');
  await mkdir(cwd);
  await writeFile(join(cwd, 'recordings'), '');
  const byDefault = await serveOnTakenPort([], {}, cwd);
  assertRefused(byDefault, /the recordings folder recordings \(the default; choose another with --recordings DIR\): files cannot be written there: .*recordings is a file, not a folder/);
});

test('a good folder passes the check and keeps nothing of it: the port is the error', async () => {
  const good = join(dir, 'good', 'calls');
  const r = await serveOnTakenPort(['--recordings', good]);
  assert.notEqual(r.code, 0);
  assert.match(r.out, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already taken`));
  assert.deepEqual(await readdir(good), [], 'the write check leaves no file behind');
});

test('hiwar worker checks its recordings folder before it tries Redis', async () => {
  const r = await run(['worker', '--redis', 'redis://127.0.0.1:1', '--recordings', join(dir, 'a-file', 'calls')]);
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, new RegExp(`--recordings ${dir}/a-file/calls: files cannot be written there: ${dir}/a-file is a file, not a folder`));
  assert.doesNotMatch(r.out, /cannot reach Redis/);
});

// Only analytics records calls: `--recordings` alone was ignored without a word, and the operator
// found no recording after the first calls.
test('--recordings without --analytics is refused, naming --analytics, before the port', async () => {
  const r = await run(['serve', '--port', String(port), '--recordings', join(dir, 'good')]);
  assert.equal(r.code, 2, r.out);
  assert.match(r.out, /--recordings only says where analytics keeps the calls it records, and analytics is off: add --analytics/);
  assert.doesNotMatch(r.out, /already taken/);
  assert.doesNotMatch(r.out, /starting the embedded sandbox/);
});

test('--recordings with HIWAR_ANALYTICS_WEBHOOK_URL (analytics on without the flag) is taken', async () => {
  const r = await run(['serve', '--port', String(port), '--recordings', join(dir, 'a-file')], { HIWAR_ANALYTICS_WEBHOOK_URL: 'https://crm.example/hook' });
  assertRefused(r, new RegExp(`--recordings ${dir}/a-file: files cannot be written there`));
});

test('HIWAR_RECORDINGS_DIR without analytics is said, not refused (the variable may be there for the workers)', async () => {
  const r = await run(['serve', '--port', String(port)], { HIWAR_RECORDINGS_DIR: join(dir, 'good') });
  assert.match(r.out, new RegExp(`warn HIWAR_RECORDINGS_DIR is set but analytics is off: no call is recorded; add --analytics to record them \\(HIWAR_RECORDINGS_DIR=${dir}/good\\)`));
  assert.match(r.out, /already taken/, 'start-up went on to the port');
});

// hiwar serve chooses the folder once, in this check, and analytics is handed that folder (it
// chose it again, from the same flag and variable).
test('the argument check gives analytics the folder it checked: --recordings, else HIWAR_RECORDINGS_DIR; none with analytics off', async () => {
  const saved = { ...process.env };
  try {
    Object.assign(process.env, ENV, { HIWAR_RECORDINGS_DIR: join(dir, 'from-env') });
    const check = (args: string[]) => checkServeArgs(parseCommand(args, SERVE_FLAGS, SERVE_USAGE)!);
    assert.equal((await check(['--analytics', '--recordings', join(dir, 'flag')])).recordingsDir, join(dir, 'flag'));
    assert.equal((await check(['--analytics'])).recordingsDir, join(dir, 'from-env'));
    assert.equal((await check([])).recordingsDir, undefined, 'analytics off: nothing recorded, no folder');
    process.env.HIWAR_ANALYTICS_WEBHOOK_URL = 'https://crm.example/hook';
    assert.equal((await check([])).recordingsDir, join(dir, 'from-env'), 'a webhook turns analytics on');
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
});
