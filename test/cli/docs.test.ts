import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { mapLimit, SIDE_BY_SIDE } from '../helpers/parallel.ts';
import { docPages, runnableSnippets } from '../helpers/snippets.ts';

/**
 * The README and docs/ as a newcomer follows them: every link leads somewhere, every import
 * they show resolves, every option they give a command is one the command takes; and every
 * docs/ section a source comment points a reader to is there; every page is in the guide's
 * contents, and every code block of the README runs as written.
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const DOCS = [...docPages(ROOT), 'CHANGELOG.md'];
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const withoutCode = (md: string) => md.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of withoutCode(md).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = heading!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base);
    seen.set(base, (n ?? -1) + 1);
    out.add(n === undefined ? base : `${base}-${n + 1}`);
  }
  return out;
}

test('every relative link in the README and docs/ leads to a file, and a #anchor to a heading there', () => {
  const broken: string[] = [];
  for (const file of DOCS) {
    for (const [, link] of withoutCode(text(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(link!)) continue;
      const [path, anchor] = link!.split('#');
      const target = path ? join(dirname(file), path) : file;
      if (!existsSync(join(ROOT, target))) broken.push(`${file}: ${link} (no such file)`);
      else if (anchor && target.endsWith('.md') && !anchors(text(target)).has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

test('every hiwar module the docs import from is one the package exports', () => {
  const unresolved: string[] = [];
  for (const file of DOCS) {
    for (const [, spec] of text(file).matchAll(/(?:from |import\()'(hiwar(?:\/[^']*)?)'/g)) {
      try {
        import.meta.resolve(spec!);
      } catch {
        unresolved.push(`${file}: ${spec}`);
      }
    }
  }
  assert.deepEqual(unresolved, []);
});

test('every option the docs give a hiwar command is in that command\'s --help', async () => {
  const used = new Map<string, Set<string>>();
  for (const file of DOCS) {
    // A command line in a code block or in backticks: up to the end of the line, a comment or the closing backtick.
    for (const [, command, rest] of text(file).matchAll(/\bhiwar (demo|console|sandbox|serve|call|campaign|status|worker)\b([^`\n#|]*)/g)) {
      for (const [flag] of rest!.matchAll(/--[a-z][a-z-]*/g)) {
        if (!used.has(command!)) used.set(command!, new Set());
        used.get(command!)!.add(`${flag}\t${file}`);
      }
    }
  }
  const run = promisify(execFile);
  const helps = await mapLimit([...used.keys()], SIDE_BY_SIDE, async (command) => (await run(process.execPath, [join(ROOT, 'bin/hiwar.js'), command, '--help'], { cwd: ROOT })).stdout);
  const unknown: string[] = [];
  [...used.entries()].forEach(([command, flags], i) => {
    const known = new Set(helps[i]!.match(/--[a-z][a-z-]*/g));
    for (const entry of flags) {
      const [flag, file] = entry.split('\t');
      if (!known.has(flag!)) unknown.push(`${file}: hiwar ${command} ${flag}`);
    }
  });
  assert.ok(used.size >= 4, 'the docs name the commands');
  assert.deepEqual(unknown, []);
});

test('every docs/ page (and #section) the code, tests, benches and examples cite exists', () => {
  const broken: string[] = [];
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? (e.name === 'node_modules' ? [] : walk(`${dir}/${e.name}`)) : /\.(ts|mjs|js)$/.test(e.name) ? [`${dir}/${e.name}`] : [],
    );
  const sources = ['src', 'transports', 'agents', 'test', 'bench', 'examples', 'bin'].filter((d) => existsSync(join(ROOT, d))).flatMap(walk);
  let cited = 0;
  for (const file of sources) {
    for (const [, page, anchor] of text(file).matchAll(/\bdocs\/([a-z][a-z0-9-]*\.md)(?:#([a-z0-9-]+))?/g)) {
      cited++;
      const target = `docs/${page}`;
      if (!existsSync(join(ROOT, target))) broken.push(`${file}: ${target} (no such page)`);
      else if (anchor && !anchors(text(target)).has(anchor)) broken.push(`${file}: ${target}#${anchor} (no such heading)`);
    }
  }
  assert.ok(cited >= 10, 'the sources cite docs pages');
  assert.deepEqual(broken, []);
});

test("every page under docs/ is in the guide's contents (docs/README.md), and every guide page there names its next", () => {
  const contents = withoutCode(text('docs/README.md'));
  const linked = new Set([...contents.matchAll(/\]\(([^)#\s]+)/g)].map(([, l]) => join('docs', l!)));
  const missing = docPages(ROOT).filter((p) => p.startsWith('docs/') && p !== 'docs/README.md' && !linked.has(p));
  assert.deepEqual(missing, [], 'pages the guide does not list');
  // The guide's sections 1–9 (not the reference): each page ends with a "Next:" link.
  const guide = contents.slice(0, contents.indexOf('## Reference'));
  const withoutNext = [...guide.matchAll(/\]\(([\w-]+\.md)\)/g)]
    .map(([, l]) => `docs/${l}`)
    .filter((p) => !/^Next: .*\]\([^)]+\)/m.test(text(p).trimEnd().split('\n').slice(-3).join('\n')));
  assert.deepEqual(withoutNext, [], 'guide pages without a "Next:" link at the end');
});

test('every code block of the README is a runnable snippet, and test/package/installed.test.ts runs each snippet once', () => {
  const readme = text('README.md');
  const blocks = [...readme.matchAll(/^```(js|ts|javascript|typescript)\n([^\n]*)/gm)].map(([, , first]) => first!);
  const unmarked = blocks.filter((first) => !/^\/\/ [\w-]+\.mjs: /.test(first));
  assert.deepEqual(unmarked, [], 'README code blocks without a "// name.mjs: what it is" first line (one installed.test.ts runs)');
  const snippets = runnableSnippets(ROOT);
  const names = snippets.map((s) => s.name);
  assert.deepEqual(names.filter((n, i) => names.indexOf(n) !== i), [], 'two snippets saved under one name');
  const installed = text('test/package/installed.test.ts');
  const runs = (name: string) => installed.split(`SNIPPETS.get('${name}')`).length - 1;
  assert.deepEqual(snippets.filter((s) => runs(s.name) !== 1).map((s) => `${s.page}: ${s.name} run ${runs(s.name)} times`), []);
  assert.ok(snippets.some((s) => s.page === 'README.md'), 'the README shows a runnable snippet');
});

test("the offline mediasoup kit's README (shipped in the package) names the kit's own scripts, none beside the clone", () => {
  const kit = 'scripts/mediasoup-offline';
  const commands = text(`${kit}/README.md`).split('\n').filter((line) => /^ {4}\S/.test(line));
  const scripts = commands.flatMap((line) => [...line.matchAll(/(\S+\.sh)\b/g)].map(([, path]) => path!));
  assert.ok(scripts.length >= 2, 'the README shows how to run prepare.sh and env.sh');
  const wrong = scripts.filter((path) => path.startsWith('../') || !existsSync(join(ROOT, path)));
  assert.deepEqual(wrong, [], `paths a reader cannot run from a clone (the kit is ${kit}/)`);
});

test('every page that tells a reader to `npm install hiwar` says how to install it before it is on the registry', () => {
  const pages = DOCS.filter((file) => /npm install hiwar\b/.test(text(file)));
  assert.ok(pages.length >= 2, 'the README and the guides show `npm install hiwar`');
  assert.deepEqual(pages.filter((file) => !/`npm pack`/.test(text(file))), [], 'pages that show `npm install hiwar` alone (E404 until it is published)');
});
