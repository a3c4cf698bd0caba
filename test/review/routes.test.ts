import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { putCallRecord } from '../../src/analytics/call-record.ts';
import { jobForCall } from '../../src/analytics/job.ts';
import { LocalFolderStore } from '../../src/analytics/store.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import { reviewRoutes } from '../../src/review/routes.ts';
import { AgentServer } from '../../src/server/server.ts';
import type { PluginContext } from '../../src/server/types.ts';
import type { CallReport } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';

const report: CallReport = {
  agent: 'bank',
  llm: 'scripted',
  ended: 'caller hung up',
  durationSeconds: 2,
  notices: [],
  handoffs: [],
  tasks: [],
  turns: [
    { role: 'agent', text: 'أهلًا', at: 0.6, startedAt: 0.1 },
    { role: 'user', text: 'كم رصيدي', at: 1.5, startedAt: 1, speechEndedAt: 1.4 },
    { role: 'agent', text: 'رصيدك ألف', at: 2, startedAt: 1.7 },
  ],
};

/** A server with only the review routes, on a store holding one call (a synthetic 2 s recording). */
async function withServer(secret: string | undefined, run: (url: string, jobId: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-review-routes-'));
  const store = new LocalFolderStore(dir);
  const wav = encodeWav(new Int16Array(8000 * 2 * 2).map((_, i) => (i % 2 ? 3000 : -3000)), 8000, 2);
  const job = jobForCall({ callId: 'CA-1', provider: 'twilio', parameters: {} }, report, { sampleRate: 8000, seconds: 2 }, new Date(), 'caller-hangup');
  await store.put(job.recording.key, wav);
  await putCallRecord(store, job, report);
  const logger = createLogger('silent');
  const server = new AgentServer({ port: 0, logger, sessions: () => Promise.reject(new Error('no calls here')) });
  const saved = process.env.HIWAR_REVIEW_SECRET;
  delete process.env.HIWAR_REVIEW_SECRET;
  try {
    server.use((await reviewRoutes({ store, secret })({ logger } as PluginContext))!);
    const { url } = await server.listen();
    await run(url, job.jobId);
  } finally {
    if (saved !== undefined) process.env.HIWAR_REVIEW_SECRET = saved;
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

test('without a secret the review pages are closed (403, naming HIWAR_REVIEW_SECRET), whatever is presented', async () => {
  await withServer(undefined, async (url, id) => {
    for (const path of ['/calls', `/calls/${id}`, `/calls/${id}/recording.wav`, `/calls/${id}/review.json`]) {
      const res = await fetch(url + path, { headers: { accept: 'text/html', authorization: 'Bearer anything' } });
      assert.equal(res.status, 403, path);
      assert.match(await res.text(), /closed: set HIWAR_REVIEW_SECRET/);
    }
  });
});

test('with the secret: the page and the list of a stored call; requests that are not the review pass on to the next route', async () => {
  await withServer('s3cret-for-the-test', async (url, id) => {
    const auth = { authorization: 'Bearer s3cret-for-the-test' };
    const page = await fetch(`${url}/calls/${id}`, { headers: { accept: 'text/html', ...auth } });
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<html lang="ar" dir="rtl">/);
    assert.match(html, /<audio id="audio"[^>]* src="\/calls\/[^"]+\/recording\.wav"/);
    const head = await fetch(`${url}/calls/${id}/recording.wav`, { method: 'HEAD', headers: auth });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('accept-ranges'), 'bytes');
    assert.equal(Number(head.headers.get('content-length')), 44 + 8000 * 2 * 2 * 2);
    const last = await fetch(`${url}/calls/${id}/recording.wav`, { headers: { ...auth, range: 'bytes=-10' } });
    assert.equal(last.status, 206);
    assert.equal((await last.arrayBuffer()).byteLength, 10);
    const list = await (await fetch(`${url}/calls?agent=bank`, { headers: { accept: 'text/html', ...auth } })).text();
    assert.match(list, new RegExp(`href="/calls/${id}"`));
    assert.match(list, /caller-hangup/);
    assert.doesNotMatch(await (await fetch(`${url}/calls?agent=shop`, { headers: { accept: 'text/html', ...auth } })).text(), /href="\/calls\/twilio/);
    // Not the review's: JSON clients, other methods, the live view. Nothing else is mounted here: 404.
    assert.equal((await fetch(`${url}/calls/${id}`, { headers: { accept: 'application/json', ...auth } })).status, 404);
    assert.equal((await fetch(`${url}/calls`, { method: 'POST', headers: auth })).status, 404);
    assert.equal((await fetch(`${url}/calls/live`, { headers: { accept: 'text/html', ...auth } })).status, 404);
  });
});

test("a call's own id (a placed call's out-…, a platform's id) opens its newest recorded call: the id POST /calls printed is not a 404", async () => {
  await withServer('s3cret-for-the-test', async (url, id) => {
    const auth = { authorization: 'Bearer s3cret-for-the-test' };
    const get = (path: string, accept = 'text/html') => fetch(url + path, { headers: { accept, ...auth }, redirect: 'manual' });
    // withServer's call is twilio's CA-1: its job id is twilio-CA-1-<end ms>.
    const page = await get('/calls/CA-1');
    assert.equal(page.status, 302);
    assert.equal(page.headers.get('location'), `/calls/${id}`);
    assert.equal((await get('/calls/CA-1/review.json', 'application/json')).headers.get('location'), `/calls/${id}/review.json`);
    assert.equal((await get('/calls/CA-1/recording.wav', '*/*')).headers.get('location'), `/calls/${id}/recording.wav`);
    assert.equal((await fetch(`${url}/calls/CA-1`, { headers: { accept: 'text/html', ...auth } })).status, 200, 'followed, the page itself');
    // Only a whole call id: a part of one, or an unknown id, is still not a call.
    for (const other of ['/calls/CA', '/calls/A-1', '/calls/out-unknown', '/calls/twilio']) assert.equal((await get(other)).status, 404, other);
  });
});
