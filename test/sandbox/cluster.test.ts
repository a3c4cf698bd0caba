/**
 * Embedded sandboxes in the workers of a node:cluster primary (`hiwar serve --workers N` on the
 * embedded sandbox): each worker's sandbox must be its own server. node:cluster shares a port-0
 * listener between workers, so without an exclusive listen both sandboxes answered on one port in
 * turn, and half the requests carried a key the other sandbox did not know (401 on every call).
 */
import assert from 'node:assert/strict';
import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import http from 'node:http';
import { after, it } from 'node:test';

// The compiled test tree runs .js: the child is named with this file's own extension.
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const CHILD = new URL(`./cluster-child${ext}`, import.meta.url).pathname;
const workers: Worker[] = [];

/** A GET on a fresh connection each time, so node:cluster may hand each one to either worker. */
const status = (url: string, key: string) =>
  new Promise<number>((resolve, reject) => {
    http.get(url, { agent: false, headers: { 'x-api-key': key } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });

after(() => {
  for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
});

it('each cluster worker starts its own sandbox on its own port, and its key works on every request', async () => {
  cluster.setupPrimary({ exec: CHILD, execArgv: process.execArgv, silent: false });
  const started = [1, 2].map(async () => {
    const w = cluster.fork();
    workers.push(w);
    const [m] = (await once(w, 'message')) as [{ url: string; key: string }];
    return m;
  });
  const [a, b] = await Promise.all(started);
  assert.notEqual(new URL(a!.url).port, new URL(b!.url).port, 'the two sandboxes listen on ports of their own');
  for (const s of [a!, b!]) {
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await status(`${s.url}/voices`, s.key));
    assert.deepEqual(answers, Array(8).fill(200), `every request with the sandbox's own key is taken (${s.url})`);
  }
  for (const w of workers) w.disconnect();
  await Promise.all(workers.map((w) => (w.isDead() ? undefined : once(w, 'exit'))));
});
