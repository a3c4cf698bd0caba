/**
 * `bench/on-dist.sh` says what it runs before the figures: the compiled package (dist/), when it
 * was built, the commit of its checkout, and, when sources changed since the build, that the
 * figures are of the older build. Run as written on a checkout of its own: the script, a bench
 * runner that prints what it was given, a dist/ and a git commit.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { execOk, runCommand } from '../helpers/processes.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'hiwar-on-dist-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('bench/on-dist.sh names dist/, its build time and commit before the figures, and says when sources are newer than the build', async () => {
  mkdirSync(join(dir, 'bench'));
  cpSync(join(ROOT, 'bench/on-dist.sh'), join(dir, 'bench/on-dist.sh'));
  // The specifier built from parts: the suite's compiled copy of this file has its `.ts` specifiers rewritten.
  const specifier = ['..', 'src', 'index'].join('/') + '.ts';
  writeFileSync(join(dir, 'bench/run.ts'), `import { VERSION } from '${specifier}';\nconsole.log(\`bench ran with \${process.argv.slice(2).join(' ')} on \${VERSION}\`);\n`);
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/index.ts'), "export const VERSION = 'sources';\n");
  mkdirSync(join(dir, 'dist/src'), { recursive: true });
  writeFileSync(join(dir, 'dist/src/index.js'), "export const VERSION = 'dist';\n");
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  writeFileSync(join(dir, '.gitignore'), 'node_modules\ndist\n');
  const git = (...args: string[]) => execOk('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-qm', 'x');
  const commit = (await git('rev-parse', '--short', 'HEAD')).stdout.trim();
  // Built after the sources were written.
  const built = new Date('2026-11-28T01:02:03Z');
  utimesSync(join(dir, 'src/index.ts'), new Date('2026-11-28T01:00:00Z'), new Date('2026-11-28T01:00:00Z'));
  utimesSync(join(dir, 'dist/src/index.js'), built, built);
  const run = () => runCommand('bash', ['bench/on-dist.sh', 'latency', 'calls=1'], { cwd: dir, timeoutMs: 60_000 });
  const fresh = await run();
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.equal(fresh.stdout, `bench/on-dist.sh: running the compiled package dist/, built 2026-11-28 01:02:03 UTC, in a checkout at commit ${commit}\nbench ran with latency calls=1 on dist\n`);

  // A source changed (uncommitted) since the build: said twice over, before the figures.
  writeFileSync(join(dir, 'src/index.ts'), "export const VERSION = 'sources, changed';\n");
  const stale = await run();
  assert.equal(stale.code, 0, stale.stderr);
  assert.equal(
    stale.stdout,
    `bench/on-dist.sh: running the compiled package dist/, built 2026-11-28 01:02:03 UTC, in a checkout at commit ${commit} with 1 uncommitted source change(s)\n` +
      'bench/on-dist.sh: 1 source file(s) changed since dist/ was built: these figures are of the older build (npm run build to bring it up to date)\n' +
      'bench ran with latency calls=1 on dist\n',
  );
});
