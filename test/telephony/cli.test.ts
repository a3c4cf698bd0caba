import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import WebSocket from 'ws';
import { Deadline } from '../helpers/deadline.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;

test('hiwar serve: the real command on the embedded sandbox, closed on localhost without --open (one line per platform says why), drains on SIGTERM', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, HIWAR_LOG_LEVEL: 'silent' };
  delete env.HIWAR_API_KEY;
  delete env.TWILIO_AUTH_TOKEN;
  delete env.HIWAR_MEDIA_TOKEN;
  delete env.HIWAR_WEBRTC_SECRET;
  delete env.REDIS_URL;
  // The default address, 127.0.0.1: closed all the same.
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--public-url', 'https://agent.example.com'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    const deadline = new Deadline(60_000);
    while (!/agent "call-centre" at http:\/\/[\d.]+:\d+[\s\S]*pcm +media.*\n/.test(out)) {
      if (deadline.expired || child.exitCode !== null) throw new Error(`serve did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const port = /at http:\/\/[\d.]+:(\d+)/.exec(out.slice(out.indexOf('hiwar serve')))![1];
    const base = `http://127.0.0.1:${port}`;
    assert.match(out, /embedded sandbox/);
    assert.match(out, /\/telephony\/twilio/);
    assert.deepEqual(await (await fetch(`${base}/healthz`)).json(), { status: 'ok', activeCalls: 0 });
    assert.match(await (await fetch(`${base}/metrics`)).text(), /# TYPE hiwar_calls_total counter/);
    const refused = await fetch(`${base}/telephony/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallSid=CA1' });
    assert.equal(refused.status, 403, 'on localhost without TWILIO_AUTH_TOKEN and --open: no webhook answers');
    const ws = new WebSocket(`${base.replace('http', 'ws')}/telephony/pcm?rate=8000`);
    ws.on('error', () => {});
    const [, res] = (await once(ws, 'unexpected-response')) as [unknown, { statusCode: number }];
    assert.equal(res.statusCode, 401, 'nor media without a token');
    assert.match(out, /access \(tokens spent in this process\):/);
    assert.match(out, /twilio +webhooks CLOSED: set TWILIO_AUTH_TOKEN/);
    assert.match(out, /freeswitch +media CLOSED: set HIWAR_MEDIA_TOKEN/);
    // WebRTC's own line (when mediasoup runs here) says the same: test/webrtc/signaling.test.ts.
    assert.doesNotMatch(out, /OPEN/);
    assert.doesNotMatch(out, /sk-sandbox-/, 'no key in the output');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    assert.match(out, /SIGTERM: draining/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
