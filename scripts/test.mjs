#!/usr/bin/env node
// `npm test`: the two type checks and the test files at the same time. The test files spend most
// of their time waiting on scaled clocks and sockets, so the type checks (CPU only) fit beside
// them instead of holding up the first test for half a minute. Hand-written because it is only
// "start three processes, report the worst exit code"; nothing on npm does that with less.
//
// The checks keep their state in node_modules/.cache, so a re-run after a small edit checks only
// what changed. HIWAR_TEST_CONCURRENCY sets how many test files run at once; arguments, if any,
// replace the list of test files (npm test -- test/session/scenarios.test.ts).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Test files at once. Two: three finished sooner only while the machine had CPU to spare; on a
 * loaded one the whole-call tests then fell behind their scaled clocks (docs/testing.md).
 */
const CONCURRENCY = process.env.HIWAR_TEST_CONCURRENCY ?? '2';
const ROOT = new URL('..', import.meta.url).pathname;
const CACHE = join(ROOT, 'node_modules/.cache/hiwar');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function run(args, { quiet = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let out = '';
    child.stdout?.on('data', (c) => (out += c));
    child.stderr?.on('data', (c) => (out += c));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });
}

const typecheck = async () => {
  const check = (project, info) => run([tsc, '--noEmit', '-p', project, '--incremental', '--tsBuildInfoFile', join(CACHE, info)], { quiet: true });
  // One after the other: a single checker beside the tests is as much CPU as they can spare.
  const core = await check('tsconfig.json', 'tsc-core.tsbuildinfo');
  const page = await check('transports/webrtc/page', 'tsc-page.tsbuildinfo');
  return { code: core.code || page.code, out: core.out + page.out };
};

const files = process.argv.length > 2
  ? process.argv.slice(2)
  : readdirSync(join(ROOT, 'test'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => readdirSync(join(ROOT, 'test', d.name)).filter((f) => f.endsWith('.test.ts')).map((f) => `test/${d.name}/${f}`))
      .sort();

const [types, tests] = await Promise.all([typecheck(), run(['--import', 'tsx', '--test', `--test-concurrency=${CONCURRENCY}`, ...files])]);
if (types.code) process.stderr.write(`\ntype check failed:\n${types.out}`);
process.exitCode = types.code || tests.code;
