import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hiwar } from '../analytics/harness.ts';

test('hiwar serve stopped by SIGTERM while it starts: the signal is kept, the server drains once started, and exits 0', async () => {
  const serve = hiwar(['serve', '--port', '0'], { HIWAR_API_KEY: '', REDIS_URL: '' });
  try {
    // The first line comes before the embedded sandbox, the agent server and the banner.
    await serve.waitFor(/no HIWAR_API_KEY: starting the embedded sandbox/, 'the first start-up line');
    serve.process.kill('SIGTERM');
    await serve.waitFor(/SIGTERM: draining \(0 calls running, no new calls\)\n[\s\S]*drained; bye/, 'drained after starting');
    const code = serve.process.exitCode ?? (await new Promise((r) => serve.process.once('exit', r)));
    assert.equal(code, 0, serve.output());
  } finally {
    await serve.kill();
  }
});
