// WebRTC from the installed package with the optional peers added (test/package/blank-project.ts:
// packed and installed once for all of test/package/'s files).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { blankProject, ROOT, startUntil, type BlankProject } from './blank-project.ts';

let blank: BlankProject;
before(async () => {
  blank = await blankProject('peers');
});
after(() => blank?.remove());

test('WebRTC from the installed package: with mediasoup and the Opus codec added, hiwar serve runs the compiled call page (and the guide at /docs)', async () => {
  // The native parts this machine built (scripts/setup.sh) instead of building them again (a
  // minute of compiling C, not what is tested here): mediasoup's worker given as mediasoup
  // documents it; the Opus codec's addon is where the package looks for its prebuilt binary
  // (blank-project.ts).
  const worker = join(ROOT, 'node_modules/mediasoup/worker/out/Release/mediasoup-worker');
  const withNative = { ...blank.env, MEDIASOUP_WORKER_BIN: worker };
  const serve = await startUntil(blank.project, join(blank.project, 'node_modules/.bin/hiwar'), ['serve', '--port', '0', '--open', '--docs'], withNative, /WebRTC is (on|off).*/);
  try {
    assert.match(serve.out, /WebRTC is on \(mediasoup/, serve.out);
    const base = /hiwar serve: .* at (http:\/\/\S+)/.exec(serve.out)![1]!;
    const page = await fetch(`${base}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
    const script = await fetch(`${base}/webrtc/app.js`);
    assert.equal(script.status, 200, 'the prebuilt page script');
    assert.ok((await script.arrayBuffer()).byteLength > 10_000);
    assert.equal((await fetch(`${base}/webrtc/font.woff2`)).status, 200, 'the Arabic font, copied into the package');
    // --docs: the guide the package ships, rendered by the installed package's own dependencies.
    const guide = await fetch(`${base}/docs/webrtc.md`);
    assert.equal(guide.status, 200, 'the guide at /docs (docs/ shipped, markdown-it a dependency)');
    assert.match(await guide.text(), /<h1 id="[^"]+">[^<]*WebRTC/i);
  } finally {
    serve.stop();
  }
});
