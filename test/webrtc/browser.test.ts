import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { encodeWav } from '../../src/audio/wav.ts';
import { launchChromium, type Chromium } from '../helpers/chromium.ts';
import { pad, runSandbox, voiced, type Running } from '../helpers/sandbox.ts';
import { startWebRtcServer, type WebRtcServer } from '../helpers/webrtc-server.ts';
import { until, within } from '../helpers/deadline.ts';

// The callbacks given to page.evaluate/waitForFunction run in the page; the Node program that
// type-checks this file has no DOM library.
declare const window: any;
declare const document: any;

const OUT = new URL('../../out/', import.meta.url).pathname;
const LINE = 'كم رصيدي';

let sandbox: Running;
let server: WebRtcServer;
let chrome: Chromium;

before(async () => {
  sandbox = await runSandbox();
  // The caller's line, voiced by the sandbox (so its closed-set recognizer knows it), with
  // silence before it (the page joins while the fake microphone already plays) and after it.
  const speech = await voiced(sandbox.client, LINE, 48000, 'ar-najdi-male-2');
  await mkdir(OUT, { recursive: true });
  const wav = `${OUT}webrtc-caller.wav`;
  await writeFile(wav, encodeWav(pad(speech, 48000, 2.5, 12), 48000));
  // What the recognizer knows grows once a call is there (an agent chosen for it was taught):
  // the page must ask again, not keep the list it loaded with.
  server = await startWebRtcServer(sandbox.client, { agent: { greeting: undefined }, plugin: { phrases: () => (server?.host.calls.length ? [LINE, 'عبارة الوكيل'] : [LINE]) } });
  chrome = await launchChromium(wav);
});

after(async () => {
  await chrome?.close();
  await server?.close();
  await sandbox?.close();
});

test('a caller in headless Chromium talks to the agent: the agent hears the line, answers aloud, and both captions show right to left', async () => {
  const { joinUrl } = await server.token({ parameters: { customer: 'web-visitor-1' } });
  const page = await chrome.context.newPage();
  const consoleErrors: string[] = [];
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await page.goto(joinUrl);
  await page.click('#join');
  await within(page.waitForFunction(() => window.hiwar.stats.joined === true, undefined, { timeout: 0 }), 20_000, 'the page joined');

  // The agent's answer: a finished agent caption after the caller's recognized line.
  await within(page.waitForSelector('.caption.agent:not(.interim)', { timeout: 0 }), 45_000, "the agent's finished caption");
  await within(page.waitForFunction(() => window.hiwar.stats.state === 'listening' && window.hiwar.stats.received.agent?.audibleSeconds > 1, undefined, { timeout: 0 }), 30_000, "the agent's answer heard, the page listening again");
  const stats = await page.evaluate(() => window.hiwar.stats);
  assert.deepEqual(stats.phrases, [LINE, 'عبارة الوكيل'], 'the list asked for again once the call started');
  assert.deepEqual(await page.$$eval('#phrase-list li', (items: { textContent: string }[]) => items.map((li) => li.textContent)), [LINE, 'عبارة الوكيل']);
  const userCaption = await page.textContent('.caption.user bdi');
  const agentCaption = await page.textContent('.caption.agent bdi');
  await page.screenshot({ path: `${OUT}webrtc-call.png`, fullPage: true });

  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(stats.errors, []);
  assert.equal(userCaption, LINE, 'the agent heard the caller through WebRTC and Opus');
  const call = server.host.calls[0]!;
  assert.equal(call.transport.call.provider, 'webrtc');
  assert.equal(call.transport.call.parameters.customer, 'web-visitor-1');
  const agentTurn = call.events.find((e) => e.type === 'agent_turn');
  assert.ok(agentTurn && agentTurn.type === 'agent_turn');
  assert.equal(agentCaption, agentTurn.text);
  assert.match(agentCaption!, /رصيد/);
  // The agent's voice reached the page: loud enough and about as long as what was spoken.
  const heard = stats.received.agent;
  assert.ok(heard.peakRms > 0.02, `agent audio peak RMS ${heard.peakRms}`);
  assert.ok(heard.audibleSeconds > 1, `agent audio heard for ${heard.audibleSeconds} s`);
  assert.ok(stats.micPeakRms > 0.02, `microphone level ${stats.micPeakRms}`);
  // Per-turn latency is shown.
  assert.match((await page.textContent('#latency')) ?? '', /\d+ ms/);
  assert.equal(await page.getAttribute('#state', 'data-state'), 'listening');

  // Right to left: the caption box runs RTL; in the agent's line the first word is rightmost, and
  // a Latin run inside it (the amount) keeps its own left-to-right order.
  // A string, not a function: tsx's transform would wrap the nested helpers in a __name() the
  // page does not have.
  const layout = (await page.evaluate(`(() => {
    const text = document.querySelector('.caption.agent bdi').firstChild;
    const rect = (from, to) => {
      const r = document.createRange();
      r.setStart(text, from);
      r.setEnd(text, to);
      return r.getBoundingClientRect();
    };
    const s = text.data;
    const digits = s.search(/[0-9]/);
    const run = s.slice(digits).match(/^[0-9,.]+/)[0];
    return {
      direction: getComputedStyle(document.getElementById('captions')).direction,
      firstRight: rect(0, s.indexOf(' ')).right,
      lastLeft: rect(s.length - 2, s.length).left,
      runStartLeft: rect(digits, digits + 1).left,
      runEndLeft: rect(digits + run.length - 1, digits + run.length).left,
      run,
    };
  })()`)) as { direction: string; firstRight: number; lastLeft: number; runStartLeft: number; runEndLeft: number; run: string };
  assert.equal(layout.direction, 'rtl');
  assert.ok(layout.firstRight > layout.lastLeft, 'the line starts on the right');
  assert.ok(layout.runStartLeft < layout.runEndLeft, `the Latin run ${layout.run} reads left to right inside the Arabic`);

  // Transcript download: a text file with both sides.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  const transcript = Buffer.concat(chunks).toString();
  assert.match(transcript, new RegExp(`المتصل: ${LINE}`));
  assert.match(transcript, /الوكيل: .*رصيد/);

  await page.click('#leave');
  await page.close();
  // Leaving ends the agent's call and frees the room.
  await until(() => server.plugin.rooms === 0, 'the room freed after leaving');
  assert.equal((await server.plugin.resources()).routers, 0);
});
