import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { BIN, hiwar } from './harness.ts';

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const e: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete e.REDIS_URL;
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...e, ...env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
};

test('hiwar worker: usage, and clear errors for a missing Redis or a bad option', () => {
  const help = run(['worker', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /Usage: hiwar worker/);
  assert.match(help.out, /--retry-parked/);
  assert.match(run(['help']).out, /hiwar worker/);
  const noRedis = run(['worker']);
  assert.equal(noRedis.code, 2);
  assert.match(noRedis.out, /no Redis: set REDIS_URL or pass --redis/);
  const badLock = run(['worker', '--redis', 'redis://127.0.0.1:1', '--lock-ms', '5']);
  assert.equal(badLock.code, 2);
  assert.match(badLock.out, /--lock-ms must be a whole number from 1000/);
  const badHook = run(['worker', '--redis', 'redis://127.0.0.1:1', '--webhook', 'ftp://x']);
  assert.match(badHook.out, /--webhook must be an http\(s\) URL/);
});

test('hiwar serve --analytics without Redis analyzes in process, and says where results go', async () => {
  const serve = hiwar(['serve', '--port', '0', '--analytics', '--recordings', '/tmp/hiwar-cli-analytics-test'], {
    HIWAR_API_KEY: '',
    REDIS_URL: '',
    HIWAR_ANALYTICS_WEBHOOK_URL: 'https://hooks.example.com/calls?token=abc',
  });
  try {
    await serve.waitFor(/analytics: in this process \(no REDIS_URL\), recordings and results in \/tmp\/hiwar-cli-analytics-test, summaries POSTed to https:\/\/hooks\.example\.com\n/, 'the analytics line');
    assert.doesNotMatch(serve.output(), /token=abc/, 'the webhook query stays out of the output');
    serve.process.kill('SIGTERM');
    await serve.waitFor(/drained; bye/, 'drained on SIGTERM');
  } finally {
    await serve.kill();
  }
});
