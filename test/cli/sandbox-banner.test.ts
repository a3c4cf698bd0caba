import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { filter, firstValueFrom } from '../helpers/rx.ts';
import { hiwar } from '../helpers/processes.ts';
import { runSandboxProcess } from '../helpers/sandbox-process.ts';

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

test('--ahead-limit and --listen-idle set /listen\'s limits in a sandbox process; a bad value is a usage error', async () => {
  const sb = await runSandboxProcess(['--ahead-limit', '2', '--listen-idle', '0.5']);
  try {
    // Five seconds of audio at once: more than 2 s ahead of real time.
    const ahead = await sb.client.openListen({ liveness: { eventTimeoutMs: 0, pingIntervalMs: 0 } });
    const aheadClosed = firstValueFrom(ahead.events$.pipe(filter((e) => e.type === 'Closed')));
    for (let i = 0; i < 50; i++) ahead.sendAudio(new Int16Array(1600));
    const a = await aheadClosed;
    assert.ok(a.type === 'Closed' && a.close.code === 4008 && /more than 2 s ahead/.test(a.close.reason), JSON.stringify(a));
    // Nothing sent, no KeepAlive: closed as idle, the reason naming the limit given.
    const idle = await sb.client.openListen({ keepAliveMs: 0, liveness: { eventTimeoutMs: 0, pingIntervalMs: 0 } });
    const i = await firstValueFrom(idle.events$.pipe(filter((e) => e.type === 'Closed')));
    assert.ok(i.type === 'Closed' && i.close.code === 1011 && /for 0\.5 s/.test(i.close.reason), JSON.stringify(i));
  } finally {
    await sb.close();
  }
  const bad = await hiwar(['sandbox', '--port', '0', '--ahead-limit', 'none']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--ahead-limit must be a number from 1 to 1000000, got "none"[\s\S]*Usage: hiwar sandbox/);
});
