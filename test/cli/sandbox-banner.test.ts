import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

const ROOT = new URL('../..', import.meta.url).pathname;

/** `hiwar sandbox` until its banner is printed (the line naming the phrasebook, or the last key line), then stopped. */
function banner(args: string[], last: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/hiwar.js', 'sandbox', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no banner:\n${out}`));
    }, 60_000);
    child.stdout.on('data', (c) => {
      out += c;
      if (last.test(out)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (c) => (out += c));
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

test('the sandbox says how to point hiwar at it: its address and the key to use', async () => {
  const out = await banner([], /^Use it: .*\n/m);
  const url = /serving (http:\/\/127\.0\.0\.1:\d+\/api\/v1)/.exec(out)?.[1];
  const key = /^API key: (\S+)$/m.exec(out)?.[1];
  assert.ok(url && key, out);
  assert.ok(out.includes(`Use it: HIWAR_BASE_URL=${url} HIWAR_API_KEY=${key} npx hiwar demo`), out);
});

test('with a keys file and a phrasebook: which keys to use, never a key printed, and how many phrases it knows', async () => {
  const out = await banner(['--keys', 'examples/sandbox/keys.json', '--phrasebook', 'examples/sandbox/phrases.txt'], /phrase\(s\) of .* recognizable/);
  assert.match(out, /Use it: HIWAR_BASE_URL=\S+ HIWAR_API_KEY=<a key of examples\/sandbox\/keys\.json> npx hiwar demo/);
  assert.doesNotMatch(out, /sk-example/);
  assert.match(out, /^\d+ phrase\(s\) of examples\/sandbox\/phrases\.txt recognizable from the start$/m);
});
