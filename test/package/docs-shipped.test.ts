// The guide ships with the package: every docs/ page a message, a help text or a declaration
// (the TSDoc an editor shows) names is in the file list `npm pack` makes, and so is every file
// a shipped page links to. A page renamed or a `files` entry dropped fails here, not in a
// user's terminal.
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { after, before, test } from 'node:test';
import { hiwar, runCommand } from '../helpers/processes.ts';

/** The repository (this file may run from the compiled test tree, whose files link to it). */
const ROOT = dirname(realpathSync(new URL('../../package-lock.json', import.meta.url)));
/** The folders whose code ships (compiled into dist/, with its declarations) or runs as the command. */
const SHIPPED_CODE = ['src', 'transports', 'agents', 'bin'];

let packed = new Set<string>();
const stage = mkdtempSync(join(tmpdir(), 'hiwar-docs-pack-'));

before(async () => {
  // What package.json's "files" takes of the guide: npm's own list, made in a copy holding only
  // the repository's top-level files (package.json, README, LICENSE…) and docs/ (the
  // repository's dist/ may be half rebuilt by the installed-package test's `npm pack` at this
  // moment, and npm leaves links out).
  for (const f of readdirSync(ROOT, { withFileTypes: true })) if (f.isFile()) copyFileSync(join(ROOT, f.name), join(stage, f.name));
  cpSync(join(ROOT, 'docs'), join(stage, 'docs'), { recursive: true, dereference: true });
  const r = await runCommand('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], { cwd: stage, timeoutMs: 300_000 });
  assert.equal(r.code, 0, `npm pack --dry-run failed:\n${r.stderr}`);
  const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as { files: { path: string }[] }[];
  packed = new Set(info!.files.map((f) => f.path));
});
after(() => rmSync(stage, { recursive: true, force: true }));

const walk = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : /\.(ts|js|mjs)$/.test(e.name) ? [`${dir}/${e.name}`] : []));

test('every docs/ page the shipped code names is in the package', () => {
  const named = new Map<string, string>();
  for (const file of SHIPPED_CODE.flatMap(walk)) {
    for (const [, page] of readFileSync(join(ROOT, file), 'utf8').matchAll(/\bdocs\/([a-z][a-z0-9-]*\.md)/g)) named.set(`docs/${page}`, file);
  }
  assert.ok(named.size >= 10, `the code names the guide's pages (${named.size} found)`);
  const missing = [...named].filter(([page]) => !packed.has(page)).map(([page, file]) => `${page} (named in ${file})`);
  assert.deepEqual(missing, [], 'pages a message names that `npm pack` leaves out: add docs/ to package.json "files"');
});

test('every page of the guide is in the package, with the files its links lead to', () => {
  const pages = [...packed].filter((p) => p.endsWith('.md') && (p.startsWith('docs/') || !p.includes('/')));
  assert.ok(pages.includes('docs/README.md'), "the guide's contents (docs/README.md) ships");
  const guide = readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`);
  assert.deepEqual(guide.filter((p) => !packed.has(p)), [], 'guide pages left out of the package');
  const broken: string[] = [];
  for (const page of pages) {
    const md = readFileSync(join(ROOT, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const [, link] of md.matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g)) {
      if (/^[a-z]+:/.test(link!)) continue;
      const target = normalize(join(dirname(page), link!));
      if (!packed.has(target)) broken.push(`${page}: ${link} (${target} is not in the package)`);
    }
  }
  assert.deepEqual(broken, [], 'links a reader of the installed package cannot follow');
});

test("a help text that names docs/ pages ends with the folder they are in on this machine, and each page is there", async () => {
  for (const command of [['--help'], ['serve', '--help'], ['campaign', '--help']]) {
    const help = await hiwar(command);
    assert.equal(help.code, 0, help.stderr);
    const folder = /hiwar's guide, in (\S+) on this machine/.exec(help.stdout)?.[1];
    assert.ok(folder, `hiwar ${command.join(' ')} says where the guide is:\n${help.stdout.slice(-400)}`);
    const named = [...help.stdout.matchAll(/\bdocs\/([a-z][a-z0-9-]*\.md)/g)].map(([, page]) => page!);
    assert.ok(named.length >= 1, `hiwar ${command.join(' ')} names pages`);
    assert.deepEqual(named.filter((page) => !existsSync(join(folder, page))), [], `pages not in ${folder}`);
  }
  const quiet = await hiwar(['sandbox', '--help']);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.doesNotMatch(quiet.stdout, /hiwar's guide, in/, 'a help text naming no page does not end with the line');
});
