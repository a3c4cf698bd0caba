import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { processRunTime } from '../../src/service/run-time.ts';
import { hiwar, until } from '../analytics/harness.ts';

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

test('hiwar serve --drain-timeout: a call still on when it runs out hears the agent\'s closing line, is hung up, and the process exits 0', async () => {
  const TOKEN = 'drain-timeout-media-token-0123456789';
  const serve = hiwar(['serve', '--port', '0', '--drain-timeout', '1', '--media-token', TOKEN], { HIWAR_API_KEY: '', REDIS_URL: '' });
  try {
    const [, base] = (await serve.waitFor(/agent "[^"]+" at (http:\/\/127\.0\.0\.1:\d+)/, 'the server up'))!;
    const ws = new WebSocket(`${base!.replace('http', 'ws')}/telephony/pcm?rate=16000&marks=0&call_id=late&token=${TOKEN}`);
    let bytes = 0;
    let lastAudio = 0;
    const hangup = new Promise<string>((resolve) =>
      ws.on('message', (data, binary) => {
        if (binary) return ((bytes += (data as Buffer).length), (lastAudio = processRunTime.now()));
        const m = JSON.parse(String(data)) as { type?: string; reason?: string };
        if (m.type === 'hangup') resolve(m.reason ?? '');
      }),
    );
    await new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)));
    const silence = setInterval(() => ws.readyState === ws.OPEN && ws.send(Buffer.alloc(640)), 20);
    // Run time (its ticker held): a stall of this process is no second without audio.
    processRunTime.hold();
    try {
      // The greeting heard to its end (a second without audio), so what comes after the signal is the closing line.
      await until(() => bytes > 0 && processRunTime.now() - lastAudio > 1000, 'the greeting over');
      const before = bytes;
      serve.process.kill('SIGTERM');
      // Without the flag the call would go on for the default 600 s.
      assert.equal(await hangup, 'server shutting down');
      assert.ok(bytes - before >= 32_000, `a second of the closing line at least, got ${bytes - before} bytes`);
      await serve.waitFor(/drain timed out; ending the remaining calls with their closing line[\s\S]*drained; bye/, 'the drain over');
      const code = serve.process.exitCode ?? (await new Promise((r) => serve.process.once('exit', r)));
      assert.equal(code, 0, serve.output());
    } finally {
      processRunTime.release();
      clearInterval(silence);
      ws.terminate();
    }
  } finally {
    await serve.kill();
  }
});
