// The package as a user gets it, shared by test/package/'s files: packed once, installed once into
// a blank project from the tarball with npm (the registry for its dependencies, no environment
// variable), and once more with the optional peers added. Each file then works in a blank project
// of its own whose node_modules is a link to one of those installs. Nothing here loads hiwar's
// sources.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, cpSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCommand, type Finished } from '../helpers/processes.ts';
import { fillOnce, packageKey, pruneStale } from './cache.ts';

/**
 * The repository, also when this file runs from the compiled tree of `npm test` (whose files
 * are links to the repository's): that is what gets packed, as a user's `npm pack` would.
 */
export const ROOT = dirname(realpathSync(new URL('../../package-lock.json', import.meta.url)));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
/** Every entry of the package by the name a user imports (`hiwar`, `hiwar/server`, …). */
export const ENTRIES = Object.keys(PKG.exports).filter((k) => k !== './package.json').map((k) => (k === '.' ? 'hiwar' : `hiwar/${k.slice(2)}`));

/** The package's inputs as they are now (test/package/cache.ts): a changed shipped file is a new key. */
const KEY = packageKey(ROOT);
/**
 * Outside the repository: Node looks for a package missing from the blank project in every
 * directory above it, and one inside the clone would find the repository's node_modules. `npm test`
 * gives each run its own (HIWAR_TEST_PACKAGE_CACHE, removed at the run's end), so a run never
 * installs what an earlier one packed; a file run by `node --test` alone shares one across runs.
 */
const CACHE = process.env.HIWAR_TEST_PACKAGE_CACHE ?? join(tmpdir(), 'hiwar-package-cache');
const HERE = join(CACHE, KEY);

/**
 * A blank machine's environment: no variable of this repository's setup (ONNXRUNTIME_NODE_INSTALL,
 * npm_config_nodedir, the mediasoup kit's) and none of the `npm test` run that started us.
 */
const blank: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TERM'].includes(k)));
export const npm = (args: string[], cwd: string, timeoutMs = 600_000) => runCommand('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env: blank, timeoutMs });
export const ok = (r: Finished, what: string) => assert.equal(r.code, 0, `${what} failed:\n${r.stdout}\n${r.stderr}`);

/** The tarball `npm pack` made of the repository, the files it holds and the lines its build printed. */
export async function packed(): Promise<{ tarball: string; files: string[]; buildLines: string[] }> {
  const dir = await fillOnce(join(HERE, 'pack'), async (dir) => {
    pruneStale(CACHE, KEY);
    // When this run of npm test type-checks the project (scripts/test.mjs says so), the build that
    // `npm pack` runs emits without checking the same sources a second time (scripts/build.mjs).
    const env = process.env.HIWAR_TEST_TYPES_CHECKED === '1' ? { ...process.env, HIWAR_BUILD_NO_CHECK: '1' } : process.env;
    const r = await runCommand('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, env, timeoutMs: 300_000 });
    ok(r, 'npm pack');
    const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    // The build's own lines (scripts/build.mjs writes them on stderr), as a user of npm pack sees them.
    const buildLines = r.stderr.split('\n').filter((l) => l.startsWith('build: '));
    writeFileSync(join(dir, 'pack.json'), JSON.stringify({ tarball: info!.filename, files: info!.files.map((f) => f.path), buildLines }));
  });
  const info = JSON.parse(readFileSync(join(dir, 'pack.json'), 'utf8')) as { tarball: string; files: string[]; buildLines?: string[] };
  return { tarball: join(dir, info.tarball), files: info.files, buildLines: info.buildLines ?? [] };
}

/** The repository's Opus codec package: its version is installed, its native build reused. */
const opus = join(ROOT, 'node_modules/@discordjs/opus');

/**
 * A blank project with the tarball installed (`base`), or with the optional peers added too
 * (`peers`), as a user of the cluster/analytics and WebRTC entries adds them: a copy of `base`
 * (its files linked) and one `npm install` more, so that the calls of `base` run without them. Their install
 * scripts are not needed: types, mediasoup's worker given by path, Opus's prebuilt addon (the
 * repository's build, copied where that package looks for a prebuilt binary: a minute of
 * compiling C that is not what is tested here). Returns the install's directory.
 */
export async function installed(kind: 'base' | 'peers'): Promise<string> {
  if (kind === 'base') {
    const { tarball } = await packed();
    return fillOnce(join(HERE, 'base'), async (dir) => {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'blank-app', private: true, type: 'module' }));
      ok(await npm(['install', tarball, 'typescript@5.9', '@types/node@20'], dir), 'npm install of the tarball');
    });
  }
  const base = await installed('base');
  return fillOnce(join(HERE, 'peers'), async (dir) => {
    // base's node_modules linked file by file, not copied (252 MB, most of it onnxruntime-web: the
    // copy took 1.4 to 8 s of system time, the links 0.2 s): npm adds the peers as new files and
    // writes in place only the project's files and its lock in node_modules, which are copies.
    const started = Date.now();
    for (const name of ['package.json', 'package-lock.json']) copyFileSync(join(base, name), join(dir, name));
    linkTree(join(base, 'node_modules'), join(dir, 'node_modules'));
    const lock = join(dir, 'node_modules/.package-lock.json');
    rmSync(lock);
    copyFileSync(join(base, 'node_modules/.package-lock.json'), lock);
    const opusVersion = (JSON.parse(readFileSync(join(opus, 'package.json'), 'utf8')) as { version: string }).version;
    ok(await npm(['install', '--ignore-scripts', 'ioredis', 'bullmq', 'mediasoup', `@discordjs/opus@${opusVersion}`], dir), 'npm install of the optional peers');
    const written = filesOf(join(base, 'node_modules')).filter((f) => lstatSync(f).mtimeMs >= started);
    assert.deepEqual(written, [], 'npm wrote into files the peers project shares with the base project by a link');
    cpSync(join(opus, 'prebuild'), join(dir, 'node_modules/@discordjs/opus/prebuild'), { recursive: true });
  });
}

/** `to` made as a copy of the tree `from` whose files are hard links to `from`'s (symbolic links copied as links). */
function linkTree(from: string, to: string): void {
  mkdirSync(to);
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const [src, dst] = [join(from, e.name), join(to, e.name)];
    if (e.isDirectory()) linkTree(src, dst);
    else if (e.isSymbolicLink()) symlinkSync(readlinkSync(src), dst);
    else linkSync(src, dst);
  }
}

/** Every file under `dir` (not directories or symbolic links). */
const filesOf = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesOf(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));

/** A test file's own blank project on one of the shared installs; `remove()` in its `after`. */
export interface BlankProject {
  /** A scratch directory of the file's own, the project inside it. */
  work: string;
  /** The project: the user's files go here. */
  project: string;
  /** The environment its programs run with (blank, and its directory of voiced lines). */
  env: NodeJS.ProcessEnv;
  remove(): void;
}

/**
 * A blank project of this file's own whose node_modules is the shared install. Its directory of
 * voiced lines (docs/testing.md) is empty at the start of a run and shared by this run's package
 * files only: the first call voices every line with the installed package, the calls after it
 * reuse them.
 */
export async function blankProject(kind: 'base' | 'peers'): Promise<BlankProject> {
  const install = await installed(kind);
  const work = mkdtempSync(join(tmpdir(), 'hiwar-package-'));
  const project = join(work, 'app');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'blank-app', private: true, type: 'module' }));
  symlinkSync(join(install, 'node_modules'), join(project, 'node_modules'), 'dir');
  const runRenders = process.env.HIWAR_SANDBOX_RENDER_CACHE;
  const renders = runRenders ? join(runRenders, `package-${KEY}`) : join(work, 'renders');
  return { work, project, env: { ...blank, HIWAR_SANDBOX_RENDER_CACHE: renders }, remove: () => rmSync(work, { recursive: true, force: true }) };
}

/**
 * A long-running program of the blank project (a server), its output read until `ready` matches;
 * `stop()` ends it. A program that exits first fails the test with what it printed.
 */
export async function startUntil(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ out: string; match: RegExpExecArray; stop: () => void }> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  let match: RegExpExecArray | null;
  while (!(match = ready.exec(out))) {
    if (child.exitCode !== null) assert.fail(`${args.join(' ')} exited (${child.exitCode}):\n${out}`);
    await Promise.race([once(child.stdout, 'data'), once(child, 'exit')]);
  }
  return { out, match, stop: () => child.kill() };
}
