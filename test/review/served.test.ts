import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ReviewModel } from '../../src/review/types.ts';
import { ScaledClock } from '../../src/transport/clock.ts';
import { balanceCall, callerLine, hiwar, until, type Child } from '../analytics/harness.ts';
import { runSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.ts';
import { assertTurnsOnTheirSpeech, checkReviewPage, launchBrowser, phonePage, screenshotDir } from './page-checks.ts';

const REVIEW_SECRET = 'review-secret-0123456789';
const CALLS_SECRET = 'calls-secret-0123456789';
const HTML = { accept: 'text/html,application/xhtml+xml' };
const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`supervisor:${password}`).toString('base64')}` });

let sandbox: SandboxProcess;
let serve: Child;
let dir: string;
let url: string;
let jobId: string;

// One real served call: `hiwar serve --analytics` records it, stores its record beside the
// recording, analyzes it in process; then the review pages are read over HTTP and in Chromium.
before(async () => {
  // The service in a process of its own, as in a deployment: starved (scripts/starve.mjs) with the
  // test and the server, it took the CPU they needed, and the file did not end within 900 s.
  sandbox = await runSandboxProcess();
  dir = await mkdtemp(join(tmpdir(), 'hiwar-review-serve-'));
  serve = hiwar(['serve', '--port', '0', '--analytics', '--recordings', dir, '--open'], {
    HIWAR_API_KEY: sandbox.key,
    HIWAR_BASE_URL: sandbox.url,
    HIWAR_REGION: '',
    REDIS_URL: '',
    HIWAR_ANALYTICS_WEBHOOK_URL: '',
    HIWAR_REVIEW_SECRET: REVIEW_SECRET,
    HIWAR_CALLS_SECRET: CALLS_SECRET,
  });
  url = (await serve.waitFor(/ at (http:\/\/127\.0\.0\.1:\d+)\n/, 'the server started', 120_000))[1]!;
  await serve.waitFor(/review +GET \/calls, \/calls\/<id> \(browsers\) need HIWAR_REVIEW_SECRET/, 'the review access line');
  await balanceCall(url, 'review-call-1', await callerLine(sandbox.client), new ScaledClock(1));
  await until(async () => (await readdir(join(dir, 'calls')).catch(() => [])).length > 0, 'the call record was stored', 60_000);
  jobId = (await readdir(join(dir, 'calls')))[0]!.replace(/\.json$/, '');
  await until(() => stat(join(dir, 'results', jobId, 'summary.json')).then(() => true, () => false), 'the call was analyzed', 180_000);
});
after(async () => {
  await serve?.kill();
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the review routes are closed without the secret, take it as a Basic password or a bearer token, and leave the outbound API and /calls/live alone', async () => {
  const none = await fetch(`${url}/calls`, { headers: HTML });
  assert.equal(none.status, 401);
  assert.match(none.headers.get('www-authenticate') ?? '', /^Basic realm="hiwar calls"/);
  assert.equal((await fetch(`${url}/calls/${jobId}`, { headers: { ...HTML, ...basic('wrong') } })).status, 401);
  assert.equal((await fetch(`${url}/calls/${jobId}/recording.wav`)).status, 401, 'the recording too, whatever the Accept');

  const list = await fetch(`${url}/calls`, { headers: { ...HTML, ...basic(REVIEW_SECRET) } });
  assert.equal(list.status, 200);
  assert.equal(list.headers.get('cache-control'), 'no-store');
  assert.match(await list.text(), new RegExp(`href="/calls/${jobId}"`));
  assert.equal((await fetch(`${url}/calls?slowerThan=fast`, { headers: { ...HTML, authorization: `Bearer ${REVIEW_SECRET}` } })).status, 400);

  // The page allows its one inline script by hash, nothing else.
  const page = await fetch(`${url}/calls/${jobId}`, { headers: { ...HTML, ...basic(REVIEW_SECRET) } });
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'sha256-[A-Za-z0-9+/=]+';/);

  // The recording answers byte ranges (a browser seeks with them).
  const whole = new Uint8Array(await (await fetch(`${url}/calls/${jobId}/recording.wav`, { headers: basic(REVIEW_SECRET) })).arrayBuffer());
  const part = await fetch(`${url}/calls/${jobId}/recording.wav`, { headers: { ...basic(REVIEW_SECRET), range: 'bytes=100-199' } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get('content-range'), `bytes 100-199/${whole.byteLength}`);
  assert.deepEqual(new Uint8Array(await part.arrayBuffer()), whole.subarray(100, 200));
  assert.equal((await fetch(`${url}/calls/${jobId}/recording.wav`, { headers: { ...basic(REVIEW_SECRET), range: `bytes=${whole.byteLength}-` } })).status, 416);
  const model = (await (await fetch(`${url}/calls/${jobId}/review.json`, { headers: basic(REVIEW_SECRET) })).json()) as ReviewModel;
  assert.ok(model.turns.some((t) => t.role === 'user' && /رصيدي/.test(t.text)), JSON.stringify(model.turns));
  assertTurnsOnTheirSpeech(model, whole);
  assert.equal((await fetch(`${url}/calls/no-such-call`, { headers: { ...HTML, ...basic(REVIEW_SECRET) } })).status, 404);

  // The outbound calls API keeps its paths for API clients, with its own secret.
  const api = await fetch(`${url}/calls/${jobId}`, { headers: { accept: 'application/json', authorization: `Bearer ${CALLS_SECRET}` } });
  assert.equal(api.status, 404);
  assert.deepEqual(await api.json(), { error: `no call ${jobId}` });
  assert.equal((await fetch(`${url}/calls`, { method: 'POST', headers: { authorization: `Bearer ${REVIEW_SECRET}` }, body: '{}' })).status, 401, "the review secret places no call");
  // /calls/live is the live view's, never a call id of the review.
  const live = await fetch(`${url}/calls/live`, { headers: { ...HTML, ...basic(REVIEW_SECRET) } });
  assert.ok(!(await live.text()).includes('call-model'), 'not answered as a recorded call');
});

test('in Chromium: the list shows the call, and its page plays the recording with the turns, the latency parts and the analytics beside it', async () => {
  const browser = await launchBrowser();
  try {
    const { page, errors } = await phonePage(browser, { username: 'supervisor', password: REVIEW_SECRET });
    await page.goto(`${url}/calls`);
    const row = page.locator(`#calls a[href="/calls/${jobId}"]`);
    assert.equal(await row.count(), 1, 'the list lists the call');
    await page.screenshot({ path: join(screenshotDir(), 'served-list.png'), fullPage: true });
    await row.click();
    await page.waitForURL(`${url}/calls/${jobId}`);
    const model = await checkReviewPage(page, errors, join(screenshotDir(), 'served-call.png'));
    assert.ok(model.analytics, 'the post-call analytics are in the model');
    assert.ok(model.analytics.turns.length > 0, 'a diarized transcript');
    assert.ok((await page.locator('#analytics').textContent())!.includes(model.analytics.summary.slice(0, 20)), 'the summary beside the call');
    assert.ok(model.turns.some((t) => t.latency && t.latency.parts.length >= 4), 'the answer has its latency parts');
  } finally {
    await browser.close();
  }
});
