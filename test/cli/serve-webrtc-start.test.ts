/**
 * `hiwar serve` loads WebRTC (mediasoup, the transport) and starts its workers with the first
 * browser call, not at its start (docs/webrtc.md#when-the-media-workers-start): its start-up line
 * still says WebRTC is on, and a server that has had no browser call answers one; with
 * `--webrtc-start eager` the workers run from the start.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hiwar } from '../analytics/harness.ts';
import { within } from '../helpers/deadline.ts';
import { SignalingClient } from '../helpers/signaling-client.ts';

const ENV = { HIWAR_API_KEY: '', REDIS_URL: '', HIWAR_WEBRTC_SECRET: '', HIWAR_LOG_LEVEL: 'warn' };

test('first use: the start-up line says WebRTC is on without loading it; the first token and join are answered, and only then do workers run', async () => {
  const serve = hiwar(['serve', '--port', '0', '--open'], ENV);
  try {
    const started = await serve.waitFor(/WebRTC is on \(mediasoup ([\d.]+), loaded with the first browser call\)[\s\S]*health: (http:\/\/[\d.:]+)\/healthz/, 'the start-up lines', 300_000);
    const [version, url] = [started[1]!, started[2]!];
    assert.match(serve.output(), /room tokens at POST \/webrtc\/token \(OPEN: --open and no HIWAR_WEBRTC_SECRET\)/);
    const res = await fetch(`${url}/webrtc/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 200, await res.clone().text());
    const { token, room } = (await res.json()) as { token: string; room: string };
    const sig = await SignalingClient.connect(url);
    try {
      const joined = (await within(sig.request('join', { token }), 120_000, 'the first join')) as { room: string; routerRtpCapabilities: { codecs?: { mimeType: string }[] } };
      assert.equal(joined.room, room);
      assert.ok(joined.routerRtpCapabilities.codecs?.some((c) => c.mimeType === 'audio/opus'), 'a router with Opus');
    } finally {
      sig.close();
      await sig.closed;
    }
    const status = (await (await fetch(`${url}/webrtc/status`)).json()) as { webrtc: string; mediasoup: string; workers: number };
    assert.equal(status.webrtc, 'on');
    assert.equal(status.mediasoup, version);
    assert.ok(status.workers >= 1, `workers running after the call: ${status.workers}`);
  } finally {
    await serve.kill('SIGTERM');
  }
});

test('--webrtc-start eager: the workers start with the server; a value it does not know is a usage error', async () => {
  const eager = hiwar(['serve', '--port', '0', '--webrtc-start', 'eager'], ENV);
  try {
    await eager.waitFor(/WebRTC is on \(mediasoup [\d.]+, \d+ workers\): call page at \/, room tokens at POST \/webrtc\/token \(closed: set HIWAR_WEBRTC_SECRET/, 'the eager start-up line', 300_000);
  } finally {
    await eager.kill('SIGTERM');
  }
  const wrong = hiwar(['serve', '--port', '0', '--webrtc-start', 'later'], ENV);
  await wrong.waitFor(/--webrtc-start must be "first-use" or "eager", got "later"/, 'the usage error');
  const code = wrong.process.exitCode ?? (await new Promise((r) => wrong.process.once('exit', r)));
  assert.notEqual(code, 0);
});
