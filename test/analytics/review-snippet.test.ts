import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

/**
 * docs/call-review.md's "In your own server" snippet starts as written: `createAgentServer`
 * calls `wrapSessions` while it starts, before the snippet has made its `CallAnalytics`.
 * The module sits in the repository so that `hiwar/…` resolves to this package (self-reference).
 */
const ROOT = new URL('../..', import.meta.url).pathname;

test("docs/call-review.md's server with review pages starts and serves /healthz", async () => {
  const page = readFileSync(join(ROOT, 'docs/call-review.md'), 'utf8');
  const body = [...page.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('reviewRoutes('));
  assert.ok(body, 'the page shows a server with reviewRoutes');
  const file = join(ROOT, `.review-snippet-${process.pid}.mjs`);
  const cwd = process.cwd();
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-review-snippet-'));
  delete process.env.HIWAR_API_KEY;
  // Port 0 instead of 8080 (a shared machine); the app and its address are exported to be used here.
  const listen = 'const listening = await app.listen({ port: 0 });';
  const source = body.includes('await app.listen(') ? body.replace(/await app\.listen\(\{ port: 8080 \}\);/, listen) : `${body}${listen}\n`;
  writeFileSync(file, `${source}\nexport { app, listening };\n`);
  process.chdir(dir); // its recordings folder
  let app: { drain(): Promise<void> } | undefined;
  try {
    const mod = (await import(pathToFileURL(file).href).catch((err: unknown) => {
      // A snippet that throws mid-start leaves its embedded sandbox open: fail, do not hang.
      setTimeout(() => process.exit(1), 2000).unref();
      throw err;
    })) as { app: { drain(): Promise<void> }; listening: { url: string } };
    app = mod.app;
    assert.equal((await fetch(`${mod.listening.url}/healthz`)).status, 200);
  } finally {
    await app?.drain();
    process.chdir(cwd);
    rmSync(file, { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});
