import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { runCommand } from '../helpers/processes.ts';

/** docs/server.md's hiwar.config.ts, its agent.mjs and its tsconfig.json, type-checked together as a reader would. */
const ROOT = new URL('../..', import.meta.url).pathname;
/**
 * The repository itself (the compiled test tree's files are links to its own), so that the
 * sources the check reads have the same paths in every run: the check is incremental, its state
 * kept in node_modules/.cache/hiwar/ (a fresh clone checks everything, about 15 s of CPU; a run
 * after it only what changed, about 5 s).
 */
const REPO = dirname(realpathSync(new URL('../../package-lock.json', import.meta.url)));
/** Named after the checkout: worktrees may share one node_modules (and its cache). */
const STATE = join(REPO, `node_modules/.cache/hiwar/config-docs-${createHash('sha256').update(REPO).digest('hex').slice(0, 8)}.tsbuildinfo`);
const page = readFileSync(join(ROOT, 'docs/server.md'), 'utf8');
const block = (first: RegExp) => [...page.matchAll(/```\w+\n([\s\S]*?)```/g)].map(([, body]) => body!).find((body) => first.test(body));

test("docs/server.md's hiwar.config.ts type-checks under strict tsc with the tsconfig.json the page gives", async () => {
  const config = block(/^\/\/ hiwar\.config\.ts\n/);
  const agent = block(/^\/\/ agent\.mjs\n/);
  const tsconfig = block(/^\{\s*"compilerOptions"/);
  assert.ok(config && agent && tsconfig, 'the page shows hiwar.config.ts, agent.mjs and a tsconfig.json');
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-config-docs-'));
  try {
    const options = JSON.parse(tsconfig);
    // The reader's `hiwar/server` is the installed package (its declarations are checked by
    // test/package/installed.test.ts); here it is this clone's sources, checked as the repo checks them.
    Object.assign(options.compilerOptions, {
      customConditions: ['hiwar-source'], allowImportingTsExtensions: true,
      paths: { 'hiwar/server': [join(REPO, 'src/server/index.ts')] }, typeRoots: [join(REPO, 'node_modules/@types')],
      types: ['node'], lib: ['ES2023'], skipLibCheck: true,
      incremental: true, tsBuildInfoFile: join(dir, 'state.tsbuildinfo'),
    });
    options.include = [...options.include, join(REPO, 'src/types.d.ts')];
    // Each run works on its own copy of the state and puts its result back whole (renamed into
    // place), so two runs at once never read a half-written file.
    if (existsSync(STATE)) copyFileSync(STATE, join(dir, 'state.tsbuildinfo'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(options));
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(join(dir, 'hiwar.config.ts'), config);
    writeFileSync(join(dir, 'agent.mjs'), agent);
    const tsc = await runCommand(process.execPath, [join(ROOT, 'node_modules/typescript-7/bin/tsc'), '-p', dir], { cwd: dir, timeoutMs: 300_000 });
    assert.equal(tsc.code, 0, `tsc reported:\n${tsc.stdout}${tsc.stderr}`);
    mkdirSync(dirname(STATE), { recursive: true });
    copyFileSync(join(dir, 'state.tsbuildinfo'), `${STATE}.${process.pid}`);
    renameSync(`${STATE}.${process.pid}`, STATE);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
