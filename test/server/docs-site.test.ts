/** The guide as HTML at /docs (`hiwar serve --docs`): the agent server's real port, a browser's requests. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { docsRoutes } from '../../src/server/index.ts';
import { AgentServer } from '../../src/server/server.ts';
import { createLogger } from '../../src/session/logger.ts';
import { relativeAddress, renderPage } from '../../src/docs-site/render.ts';

const servers: AgentServer[] = [];
/** An agent server with the guide mounted (the package's own, or the folder `root`), listening on a free port. */
async function serveDocs(root?: string): Promise<string> {
  const server = new AgentServer({ sessions: async () => assert.fail('no call here'), logger: createLogger('silent'), port: 0 });
  server.use(docsRoutes(root ? { root } : {}));
  servers.push(server);
  return (await server.listen()).url;
}
after(() => Promise.all(servers.map((s) => s.close())));

/** A GET as sent on the wire (fetch would normalize `..` away before it reaches the server). */
function rawGet(base: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/`, { path }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

let base = '';
before(async () => {
  base = await serveDocs();
});

test("every page of the shipped guide is reached from the contents, every link between pages leads to a page and its #section", async () => {
  const index = await fetch(`${base}/docs`, { redirect: 'manual' });
  assert.equal(index.status, 301);
  assert.equal(new URL(index.headers.get('location')!, `${base}/docs`).pathname, '/docs/');
  const pages = new Map<string, string>();
  const queue = [`${base}/docs/`];
  const broken: string[] = [];
  const wanted: { from: string; url: URL }[] = [];
  while (queue.length) {
    const url = queue.shift()!;
    if (pages.has(url)) continue;
    const res = await fetch(url);
    if (res.status !== 200) {
      broken.push(`${url}: ${res.status}`);
      continue;
    }
    assert.match(res.headers.get('content-type')!, /^text\/html; charset=utf-8/);
    assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
    const html = await res.text();
    pages.set(url, html);
    assert.doesNotMatch(html, /<script|<link|<iframe|<img|\ssrc=|@import|url\(/i, `${url} loads nothing and runs nothing`);
    for (const [, href] of html.matchAll(/<a href="([^"]+)"/g)) {
      const target = new URL(href!.replace(/&amp;/g, '&'), url);
      if (target.origin !== base) continue;
      wanted.push({ from: url, url: target });
      const page = `${target.origin}${target.pathname}`;
      if (!pages.has(page) && !queue.includes(page)) queue.push(page);
    }
  }
  assert.deepEqual(broken, []);
  for (const p of ['/docs/', '/docs/getting-started.md', '/docs/troubleshooting.md', '/docs/package/README.md', '/docs/package/CHANGELOG.md', '/docs/history/performance-rounds.md']) {
    assert.ok(pages.has(`${base}${p}`), `${p} is reached from the contents`);
  }
  const missing = wanted.filter(({ url }) => url.hash && !pages.get(`${url.origin}${url.pathname}`)!.includes(` id="${decodeURIComponent(url.hash.slice(1))}"`));
  assert.deepEqual(missing.map(({ from, url }) => `${from} → ${url.pathname}${url.hash}`), []);
});

test('a page is the Markdown rendered: headings with their anchors, tables, code escaped, Arabic kept', async () => {
  const html = await (await fetch(`${base}/docs/arabic.md`)).text();
  assert.match(html, /<html lang="en" dir="ltr">/);
  assert.match(html, /<h1 id="[a-z-]+">/);
  assert.match(html, /<table>/);
  assert.match(html, /<pre><code class="language-(ts|js)">/);
  assert.match(html, /[\u0600-\u06FF]{3,}/, 'the Arabic examples as text');
  assert.match(html, /unicode-bidi: plaintext/, 'each paragraph takes its own direction');
});

test('raw HTML in a page is shown, not run; code blocks are escaped; a link to a file the package lacks stays text', async () => {
  const root = mkdtempSync(join(tmpdir(), 'hiwar-docs-'));
  try {
    mkdirSync(join(root, 'docs'));
    writeFileSync(
      join(root, 'docs/README.md'),
      '# Contents\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n```html\n<b>"code"</b> & </pre>\n```\n\n[next](Next.md#the-end) [example](../examples/agent.ts) [raw](javascript:alert(3))\n',
    );
    writeFileSync(join(root, 'docs/Next.md'), '# Next\n\n## The end\n\n[back](README.md)\n');
    const site = await serveDocs(root);
    const html = await (await fetch(`${site}/docs/`)).text();
    assert.doesNotMatch(html, /<script>|<img/);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(html, /<pre><code class="language-html">&lt;b&gt;&quot;code&quot;&lt;\/b&gt; &amp; &lt;\/pre&gt;\n<\/code><\/pre>/);
    assert.match(html, /<a href="Next\.md#the-end">next<\/a>/);
    assert.match(html, /<span class="unshipped" title="[^"]*">example<\/span>/);
    assert.doesNotMatch(html, /href="javascript:/);
    const next = await (await fetch(`${site}/docs/Next.md`)).text();
    assert.match(next, /<h2 id="the-end">The end<\/h2>/);
    assert.match(next, /<a href="\.\/">back<\/a>/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('only the guide is served: no path outside it, no other method; other routes are left to the server', async () => {
  for (const path of ['/docs/../package.json', '/docs/%2e%2e/package.json', '/docs/..%2fpackage.json', '/docs/package/package.json', '/docs/Nope.md', '/docs/webrtc.md/']) {
    assert.equal(await rawGet(base, path), 404, path);
  }
  assert.equal((await fetch(`${base}/docs/`, { method: 'POST' })).status, 405);
  assert.equal((await fetch(`${base}/docs/`, { method: 'HEAD' })).status, 200);
  assert.equal((await fetch(`${base}/healthz`)).status, 200, "the server's own routes beside it");
  assert.equal((await fetch(`${base}/documents`)).status, 404, 'a path that only starts like the mount is not its');
});

test('addresses between pages are relative, so the site works under a prefix', () => {
  assert.equal(relativeAddress('', 'webrtc.md'), 'webrtc.md');
  assert.equal(relativeAddress('webrtc.md', ''), './');
  assert.equal(relativeAddress('package/README.md', 'webrtc.md'), '../webrtc.md');
  assert.equal(relativeAddress('history/performance-rounds.md', ''), '../');
  const page = renderPage('README.md', '# R\n\n[guide](docs/README.md) [w](docs/webrtc.md#density)', (p) => ({ 'README.md': 'package/README.md', 'docs/README.md': '', 'docs/webrtc.md': 'webrtc.md' })[p]);
  assert.match(page.html, /<a href="\.\.\/">guide<\/a> <a href="\.\.\/webrtc\.md#density">w<\/a>/);
  assert.equal(page.title, 'R');
});
