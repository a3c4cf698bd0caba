import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { assertLatencyTable } from '../helpers/latency-table.ts';
import { hiwar } from '../helpers/processes.ts';
import { assertTurnsOnTheirSpeech, checkReviewPage, launchBrowser, phonePage, screenshotDir } from './page-checks.ts';

test('hiwar demo writes call.html beside call.wav and report.json, and Chromium opens it from disk, offline: RTL captions, both waveforms, a click plays the turn', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-review-demo-'));
  const browser = await launchBrowser();
  try {
    const r = await hiwar(['demo', '--speed', '3', '--out', dir], { HIWAR_LOG_LEVEL: 'warn' }, 300_000);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /call\.html \(open it in a browser\)/);
    const html = await readFile(join(dir, 'call.html'), 'utf8');
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    assertLatencyTable(r.stdout, report.turns);
    // Self-contained: no address outside the file but its own data (the recording is inline).
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//, 'nothing fetched from a server or CDN');
    assert.match(html, /<audio id="audio"[^>]* src="data:audio\/wav;base64,/);
    const wavBytes = (await stat(join(dir, 'call.wav'))).size;
    assert.ok(html.length < wavBytes * 1.45, `the page is the recording in base64 and little more: ${html.length} for ${wavBytes} bytes of WAV`);

    const { page, errors } = await phonePage(browser);
    // The page must need no network: every request but the file itself is refused.
    await page.route('**/*', (route) => (route.request().url().startsWith('file:') || route.request().url().startsWith('data:') ? route.continue() : route.abort()));
    await page.goto(pathToFileURL(join(dir, 'call.html')).href);
    const model = await checkReviewPage(page, errors, join(screenshotDir(), 'demo-call.png'));

    // The page shows the report's call: every turn, tool markers, an interrupted reply's heard part.
    assert.equal(model.turns.length, report.turns.length);
    assert.ok(model.markers.some((m) => m.kind === 'tool' && m.label === 'get_balance'), JSON.stringify(model.markers));
    const cut = model.turns.find((t) => t.interrupted);
    assert.ok(cut, 'the demo caller cuts the agent off once');
    assert.ok(cut.unheard, `what the caller never heard is marked: ${JSON.stringify(cut)}`);
    assert.equal(await page.locator(`#turns [data-turn="${cut.index}"] del.unheard`).count(), 1);
    assert.ok(model.turns.filter((t) => t.latency).every((t) => t.latency!.parts.length >= 4), 'latency bars in parts');
    assert.ok((await page.locator('#turns .latency .bar .part').count()) >= 4);
    assert.ok(model.turns.every((t) => 0 <= t.start && t.start <= t.end && t.end <= model.seconds), `every turn on the recording: ${JSON.stringify(model.turns.map((t) => [t.start, t.end]))}`);
    assertTurnsOnTheirSpeech(model, new Uint8Array(await readFile(join(dir, 'call.wav'))));
    // The greeting is marked apart from the model's replies: in the report, the transcript printed and the page.
    assert.equal(report.turns[0].line, 'greeting', JSON.stringify(report.turns[0]));
    assert.match(r.stdout, /^ {2}الوكيل {2}◂ \[greeting\] /m);
    assert.ok(report.turns.some((t: { role: string; line?: string }) => t.role === 'agent' && !t.line), 'the model replies carry no line');
    assert.equal(await page.locator('#turns [data-turn="0"] .tag.line[data-line="greeting"]').count(), 1);
    assert.equal(await page.locator('#turns .tag.line').count(), report.turns.filter((t: { line?: string }) => t.line).length, 'a tag on the lines only');
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
});
