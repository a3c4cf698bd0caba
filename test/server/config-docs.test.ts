import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCommand } from '../helpers/processes.ts';

/** docs/server.md's hiwar.config.ts, its agent.mjs and its tsconfig.json, type-checked together as a reader would. */
const ROOT = new URL('../..', import.meta.url).pathname;
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
      paths: { 'hiwar/server': [join(ROOT, 'src/server/index.ts')] }, typeRoots: [join(ROOT, 'node_modules/@types')],
      types: ['node'], lib: ['ES2023'], skipLibCheck: true,
    });
    options.include = [...options.include, join(ROOT, 'src/types.d.ts')];
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(options));
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(join(dir, 'hiwar.config.ts'), config);
    writeFileSync(join(dir, 'agent.mjs'), agent);
    const tsc = await runCommand(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir, timeoutMs: 300_000 });
    assert.equal(tsc.code, 0, `tsc reported:\n${tsc.stdout}${tsc.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
