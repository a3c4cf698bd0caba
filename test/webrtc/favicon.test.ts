import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { AgentServer } from '../../src/server/server.ts';
import { createLogger } from '../../src/session/logger.ts';
import { PageAssets } from '../../transports/webrtc/page-bundle.ts';

test('a browser asking the server for /favicon.ico gets "no icon" (204), not a 404; other paths still 404', async () => {
  const server = new AgentServer({
    port: 0,
    logger: createLogger('silent'),
    sessions: () => {
      throw new Error('no calls in this test');
    },
  });
  const { url } = await server.listen();
  try {
    const icon = await fetch(`${url}/favicon.ico`);
    assert.equal(icon.status, 204);
    assert.equal((await icon.arrayBuffer()).byteLength, 0);
    assert.equal((await fetch(`${url}/favicon.png`)).status, 404);
  } finally {
    await server.close();
  }
});

test('the call page names its icon and the page assets serve it as SVG', async () => {
  const html = readFileSync(new URL('../../transports/webrtc/page/index.html', import.meta.url), 'utf8');
  assert.match(html, /<link rel="icon" href="\/favicon\.ico" type="image\/svg\+xml">/);
  const icon = await new PageAssets().get('/favicon.ico');
  assert.ok(icon, 'served with the page');
  assert.equal(icon.type, 'image/svg+xml');
  assert.match(icon.body.toString('utf8'), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/s);
});
