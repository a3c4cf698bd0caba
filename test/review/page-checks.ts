import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM } from '../helpers/chromium.ts';
import { splitRecording } from '../../src/analytics/channels.ts';
import type { ReviewModel } from '../../src/review/types.ts';
import { within } from '../helpers/deadline.ts';

// The callbacks given to page.evaluate run in the page; this file's program has no DOM library.
declare const document: any;
declare const getComputedStyle: any;

/**
 * Where the browser tests leave their screenshots: the repository's out/review/ (gitignored),
 * found through a file the compiled test tree links to, so they outlive the tree.
 */
export function screenshotDir(): string {
  const dir = join(dirname(realpathSync(new URL('../../README.md', import.meta.url))), 'out', 'review');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Headless Debian Chromium, no network chatter of its own; audio may play without a device. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required'],
  });
}

/** A phone-sized page that records console errors and uncaught exceptions. */
export async function phonePage(browser: Browser, credentials?: { username: string; password: string }): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, ...(credentials ? { httpCredentials: credentials } : {}) });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

/**
 * What every review page must do in a real browser, checked on the loaded page: the captions are
 * right-to-left, both waveforms are drawn, clicking a turn seeks the audio to its start, the page
 * fits a phone's width, and nothing went wrong on the console. Returns the page's model.
 */
export async function checkReviewPage(page: Page, errors: string[], screenshot: string): Promise<ReviewModel> {
  await within(page.waitForSelector('body[data-ready="true"]', { timeout: 0 }), 30_000, 'the review page ready');
  const model = JSON.parse((await page.textContent('#call-model'))!) as ReviewModel;
  assert.ok(model.turns.length >= 3, `turns in the model: ${model.turns.length}`);

  const directions = await page.evaluate(() => [...document.querySelectorAll('#turns .caption, #captions .cap')].map((el: any) => getComputedStyle(el).direction));
  assert.ok(directions.length >= model.turns.length * 2, 'a caption on the timeline and in the transcript for every turn');
  assert.ok(directions.every((d: string) => d === 'rtl'), `captions are right-to-left: ${directions.join(',')}`);

  // Speech drawn in each half of the canvas, the caller's lane above and the agent's below:
  // painted pixels more than 4 px from a lane's centre line (silence is drawn as that line), the
  // line between the lanes left out.
  const drawn = await page.evaluate(() => {
    const c = document.getElementById('wave');
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    const lanes = { caller: 0, agent: 0 };
    for (let y = 0; y < c.height; y++) {
      const top = y < c.height / 2;
      if (Math.abs(y - (top ? c.height / 4 : (c.height * 3) / 4)) <= 4 || Math.abs(y - c.height / 2) <= 2) continue;
      for (let x = 0; x < c.width; x++) if (data[(y * c.width + x) * 4 + 3] !== 0) lanes[top ? 'caller' : 'agent']++;
    }
    return lanes;
  });
  assert.ok(drawn.caller > 200 && drawn.agent > 200, `both sides' speech drawn: ${JSON.stringify(drawn)}`);

  // The page is as wide as the phone: only the timeline scrolls sideways.
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `fits a phone's width: ${width}px`);

  // Clicking a later turn in the transcript plays that moment.
  // (Where the seek landed is taken as it happens: playing moves the time on a busy machine.)
  const turn = model.turns.filter((t) => t.role === 'agent').at(-1)!;
  await page.evaluate(() => {
    const audio = document.getElementById('audio');
    (globalThis as any).seeks = [];
    audio.addEventListener('seeking', () => (globalThis as any).seeks.push(audio.currentTime));
  });
  await page.click(`#turns [data-turn="${turn.index}"]`);
  await within(page.waitForFunction(() => (globalThis as any).seeks.length > 0, undefined, { timeout: 0 }), 15_000, 'a seek of the recording');
  const at = await page.evaluate(() => (globalThis as any).seeks[0] as number);
  assert.ok(Math.abs(at - turn.start) < 0.1, `the audio seeked to the turn's start: ${at} vs ${turn.start}`);
  assert.ok(turn.start > 1, 'a turn well into the call');

  await page.screenshot({ path: screenshot, fullPage: true });
  assert.deepEqual(errors, [], 'no console errors');
  return model;
}

/**
 * The turns sit where their speech is in the recording: each turn's span holds speech on its own
 * side's channel (20 ms frames louder than the line's noise), and little of the other side's
 * (a barge-in overlaps), so an offset of a few seconds between the report and the recording
 * fails here.
 */
export function assertTurnsOnTheirSpeech(model: ReviewModel, wav: Uint8Array): void {
  const { caller, agent, sampleRate } = splitRecording(wav);
  const frame = Math.round(sampleRate / 50);
  const loudSeconds = (pcm: Int16Array, from: number, to: number) => {
    let n = 0;
    for (let i = Math.floor(from * sampleRate); i + frame <= Math.min(pcm.length, to * sampleRate); i += frame) {
      let max = 0;
      for (let j = i; j < i + frame; j++) max = Math.max(max, Math.abs(pcm[j]!));
      if (max > 2000) n++;
    }
    return n / 50;
  };
  let own = 0;
  let other = 0;
  for (const t of model.turns.filter((t) => t.end - t.start > 0.5)) {
    const mine = loudSeconds(t.role === 'user' ? caller : agent, t.start, t.end);
    assert.ok(mine >= 0.3, `${t.role} turn ${t.index} "${t.text}" at ${t.start}-${t.end} s: ${mine} s of its side's speech there`);
    own += mine;
    other += loudSeconds(t.role === 'user' ? agent : caller, t.start, t.end);
  }
  assert.ok(other <= own * 0.15, `the turns' spans hold ${own.toFixed(2)} s of their own side's speech and ${other.toFixed(2)} s of the other side's`);
}
