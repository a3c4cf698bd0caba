// What `import 'hiwar'` loads: what every program needs, and no package that only some calls use
// (each loads with its first use: src/rx.ts, src/lazy-require.ts, src/llm/zod.ts; docs/testing.md,
// "Figures: start-up, each package with its first use"). And what loads late is the very module
// a user's own import gets.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../helpers/processes.ts';
import { Subject, firstValueFrom } from '../../src/rx.ts';
import { loadZod } from '../../src/llm/zod.ts';
import { loadPrism } from '../../src/audio/prism.ts';
import { otel } from '../../src/observability/otel-api.ts';

const ts = import.meta.url.endsWith('.ts');
const entry = new URL(`../../src/index.${ts ? 'ts' : 'js'}`, import.meta.url).href;

/**
 * A fresh process imports `entry` and prints every module it loaded: ES modules as a loader hook
 * saw them (asked for after the import, so none is still on its way), CommonJS files from
 * require's cache.
 */
const CHILD = `
import { register, createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { once } from 'node:events';
const { port1, port2 } = new MessageChannel();
register('data:text/javascript,' + encodeURIComponent(\`
  const urls = [];
  export function initialize({ port }) { port.on('message', () => port.postMessage(urls)); }
  export async function load(url, context, next) { urls.push(url); return next(url, context); }\`), import.meta.url, { data: { port: port2 }, transferList: [port2] });
await import(process.argv[1]);
port1.postMessage('list');
const [esm] = await once(port1, 'message');
port1.close();
console.log(JSON.stringify({ esm, cjs: Object.keys(createRequire(import.meta.url).cache) }));
`;

test("import 'hiwar' loads none of the packages only some calls use, and only rxjs's parts it needs", async () => {
  const root = dirname(fileURLToPath(new URL('../../package.json', import.meta.url)));
  const args = [...(ts ? ['--import', 'tsx'] : []), '--input-type=module', '-e', CHILD, entry];
  const run = await runCommand(process.execPath, args, { cwd: root, timeoutMs: 120_000 });
  assert.equal(run.code, 0, run.stderr);
  const { esm, cjs } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { esm: string[]; cjs: string[] };
  const files = [...esm, ...cjs].map((f) => f.replace(/^file:\/\//, ''));
  const of = (pkg: string) => files.filter((f) => f.includes(`/node_modules/${pkg}/`));
  assert.ok(of('rxjs').length > 0 && of('@alexanderolsen/libsamplerate-js').length === 0, 'the import itself was seen (rxjs loaded)');
  for (const pkg of ['zod', 'jose', 'pino', 'ws', '@opentelemetry/api', 'prism-media', 'wavefile', 'file-type', 'libphonenumber-js']) {
    assert.deepEqual(of(pkg), [], `${pkg} loads with its first use, not with the import`);
  }
  assert.ok(!files.some((f) => f.endsWith('/node_modules/rxjs/dist/cjs/index.js')), "rxjs's whole index is not loaded");
  assert.ok(of('rxjs').length < 80, `rxjs: ${of('rxjs').length} files, the parts hiwar uses`);
});

test('what loads late is the module a user imports: the same classes, functions and schemas', async () => {
  const rxjs = await import('rxjs');
  assert.equal(Subject, rxjs.Subject);
  assert.equal(firstValueFrom, rxjs.firstValueFrom);
  assert.ok(new Subject<number>() instanceof rxjs.Observable);
  const zod = await import('zod');
  assert.equal(loadZod().z, zod.z, "zod's ES module itself, not a second copy");
  assert.equal(loadPrism(), (await import('prism-media')).default);
  assert.equal(otel().trace, (await import('@opentelemetry/api')).trace);
});
