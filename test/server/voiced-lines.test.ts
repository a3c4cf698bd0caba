/**
 * `createAgentServer`'s embedded sandbox keeps the lines it voices on disk as `hiwar serve`'s does
 * (docs/sandbox.md): a restart read them back instead of voicing every phrase again. Each server
 * runs in a process of its own (the render cache is the process's), with no key and no
 * HIWAR_SANDBOX_RENDER_CACHE, its cache in a fresh HIWAR_CACHE.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runNode } from '../helpers/processes.ts';

const CREATE = new URL('../../src/server/index.ts', import.meta.url).href;

/** Starts and closes a server on its embedded sandbox, an agent of one intent example; `sandbox` given as is. */
async function startAndClose(cache: string, sandbox: string): Promise<string> {
  const script = `
    const { createAgentServer } = await import(${JSON.stringify(CREATE)});
    const agent = { name: 'kept', instructions: 'x', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.', intents: [{ name: 'hours', examples: ['متى تفتحون'], reply: 'من التاسعة.' }] };
    const app = await createAgentServer({ agent, sandbox: ${sandbox}, logger: (await import('pino')).default({ level: 'silent' }) });
    await app.close();
  `;
  const r = await runNode(['--import', 'tsx', '--input-type=module', '-e', script], { HIWAR_CACHE: cache, HIWAR_SANDBOX_RENDER_CACHE: undefined, XDG_CACHE_HOME: undefined }, 240_000);
  assert.equal(r.code, 0, r.stderr);
  return join(cache, 'voiced-lines');
}

const lines = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.line')).length : 0);

test("createAgentServer's embedded sandbox keeps its voiced lines in hiwar's cache, as hiwar serve's does; sandbox.voicedLines: false keeps them in memory", async () => {
  const kept = await startAndClose(mkdtempSync(join(tmpdir(), 'hiwar-lines-')), '{}');
  assert.ok(lines(kept) > 0, `no voiced line kept in ${kept}: a restart voices them all again`);
  const none = await startAndClose(mkdtempSync(join(tmpdir(), 'hiwar-lines-')), '{ voicedLines: false }');
  assert.equal(lines(none), 0);
});
