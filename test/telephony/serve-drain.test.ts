/**
 * `hiwar serve`'s drain, as its own process: webhooks answered (Telnyx TeXML, a media token
 * issued each) whose streams have not connected when SIGTERM comes. The drain lets in the one
 * that connects, waits a few seconds for the other (`DRAIN_DEFAULTS.promisedMediaWaitMs`), and
 * says on its first line and in its log what it waits for and what never came.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import WebSocket from 'ws';
import { DRAIN_DEFAULTS } from '../../src/server/calls.ts';
import { platformFixture } from './fixture-files.ts';
import { spawnServe } from './serve-process.ts';

test('hiwar serve: SIGTERM with two answered Telnyx calls not connected yet: one connecting during the drain runs, the other is waited for a few seconds, and the drain says so', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, HIWAR_LOG_LEVEL: 'info' };
  for (const k of ['HIWAR_API_KEY', 'TELNYX_PUBLIC_KEY', 'HIWAR_MEDIA_TOKEN', 'REDIS_URL']) delete env[k];
  const serve = spawnServe(['--port', '0', '--open', '--public-url', 'https://agent.example.com'], env);
  const { child, until, exited } = serve;
  try {
    await until(/pcm +media.*\n/, 'the start-up lines');
    const port = /at http:\/\/[\d.]+:(\d+)/.exec(serve.out().slice(serve.out().indexOf('hiwar serve')))![1];
    const base = `http://127.0.0.1:${port}`;
    const streams: Record<string, string> = {};
    for (const sid of ['v3:a', 'v3:b']) {
      const res = await fetch(`${base}/telephony/telnyx`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `CallSid=${sid}&From=%2B15550001&To=%2B15550002` });
      assert.equal(res.status, 200);
      streams[sid] = /<Stream url="([^"]+)"/.exec(await res.text())![1]!.replace('wss://agent.example.com', `ws://127.0.0.1:${port}`);
    }
    child.kill('SIGTERM');
    await until(/SIGTERM: draining/, 'the drain line');
    assert.match(serve.out(), /SIGTERM: draining \(0 calls running, the media of 2 answered call\(s\) awaited up to \d+\.\d s, no new calls\)/);
    assert.match(serve.out(), /drain: waiting for the media of 2 answered call\(s\) not connected yet, up to \d+\.\d s \(telnyx:v3:a, telnyx:v3:b\)/);
    const waitS = Number(/the media of 2 answered call\(s\) awaited up to (\d+\.\d) s/.exec(serve.out())![1]);
    assert.ok(waitS <= DRAIN_DEFAULTS.promisedMediaWaitMs / 1000 && DRAIN_DEFAULTS.promisedMediaWaitMs <= 5000, `a few seconds after the webhook answers, not the token's lifetime: ${waitS} s`);

    // Call a's stream connects now, during the drain: it is let in and runs until its caller hangs up.
    const telnyx = platformFixture('telnyx').fromPlatform;
    const ws = new WebSocket(streams['v3:a']!);
    await once(ws, 'open');
    ws.send(JSON.stringify(telnyx.connected.message));
    ws.send(JSON.stringify({ ...telnyx.start.message, start: { ...telnyx.start.message.start, call_control_id: 'v3:a' } }));
    const agentAudio = once(ws, 'message');
    const caller = setInterval(() => ws.send(JSON.stringify(telnyx.media.message)), 20);
    await agentAudio;
    clearInterval(caller);
    assert.equal(child.exitCode, null, 'the drain waits for the call it let in');
    ws.close();

    const [code] = await exited;
    assert.equal(code, 0);
    assert.match(serve.out(), /drain: no media came for 1 answered call\(s\) \(telnyx:v3:b\); not waiting for it any longer/);
    assert.doesNotMatch(serve.out(), /refused/, 'the answered call that connected was not refused');
    assert.match(serve.out(), /drained; bye/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
