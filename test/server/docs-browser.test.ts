/** The guide at /docs in Debian's headless Chromium: Arabic reads right to left, nothing fails on the console. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { docsRoutes } from '../../src/server/index.ts';
import { AgentServer } from '../../src/server/server.ts';
import { createLogger } from '../../src/session/logger.ts';
import { launchBrowser, phonePage } from '../review/page-checks.ts';

// The callbacks given to page.evaluate run in the page; this file's program has no DOM library.
declare const document: any;

/** A page of Arabic text beside English, as a team's own guide might have. */
const sample = mkdtempSync(join(tmpdir(), 'hiwar-docs-rtl-'));
mkdirSync(join(sample, 'docs'));
writeFileSync(join(sample, 'docs/README.md'), '# Sample\n\nمرحبا بك في دليل الوكيل الصوتي، هذه فقرة عربية.\n\n- رصيدك الحالي مئة ريال\n\n| العبارة | meaning |\n| --- | --- |\n| كم رصيدي | the balance |\n\nThe English paragraph beside them.\n');
const server = new AgentServer({ sessions: async () => assert.fail('no call here'), logger: createLogger('silent'), port: 0 });
server.use(docsRoutes());
server.use(docsRoutes({ mount: '/sample', root: sample }));
const browser = launchBrowser();
after(async () => {
  await (await browser).close();
  await server.close();
  rmSync(sample, { recursive: true, force: true });
});

/** Where each block's first letter is drawn: at the block's right edge when the block is laid out right to left. */
function firstLetters(): any[] {
  return [...document.querySelectorAll('main p, main li, main td, main pre')].map((el: any) => {
    const walker = document.createTreeWalker(el, 4);
    let node = walker.nextNode();
    while (node && !node.textContent.trim()) node = walker.nextNode();
    if (!node) return undefined;
    const offset = node.textContent.search(/\S/);
    const range = document.createRange();
    range.setStart(node, offset);
    range.setEnd(node, offset + 1);
    const letter = range.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    const inCode = !!node.parentElement.closest('code');
    return { tag: el.tagName, inCode, text: node.textContent.slice(offset, offset + 12), firstAtRight: box.right - letter.right < letter.left - box.left };
  });
}

/** Each Arabic code span of two words or more: whether its first word is drawn right of its last (it reads right to left). */
function arabicSpans(): any[] {
  return [...document.querySelectorAll('main code')]
    .filter((c: any) => /^[\u0600-\u06FF]+( [\u0600-\u06FF]+)+$/.test(c.textContent) && c.firstChild?.nodeType === 3)
    .map((c: any) => {
      const text = c.textContent;
      const rect = (from: number, to: number) => {
        const r = document.createRange();
        r.setStart(c.firstChild, from);
        r.setEnd(c.firstChild, to);
        return r.getBoundingClientRect();
      };
      const first = rect(0, text.indexOf(' '));
      const last = rect(text.lastIndexOf(' ') + 1, text.length);
      return { text, rtl: first.top !== last.top || first.left > last.left };
    });
}

test("the guide in a browser: Arabic reads right to left inside English pages, English and code left to right; a link followed; no console error (the style passes the page's policy)", async () => {
  const { url } = await server.listen();
  const { page, errors } = await phonePage(await browser);
  await page.goto(`${url}/docs/arabic-parsing.md`);
  const spans = await page.evaluate(arabicSpans);
  assert.ok(spans.length >= 10, `Arabic code spans of several words: ${spans.length}`);
  assert.deepEqual(spans.filter((s: any) => !s.rtl), [], 'Arabic spans read right to left');
  const blocks = (await page.evaluate(firstLetters)).filter(Boolean);
  const english = blocks.filter((b: any) => b.tag !== 'PRE' && !b.inCode && /^[A-Za-z]/.test(b.text));
  const code = blocks.filter((b: any) => b.tag === 'PRE');
  assert.ok(english.length >= 10 && code.length >= 1, `blocks found: ${english.length} English, ${code.length} code`);
  assert.deepEqual(english.filter((b: any) => b.firstAtRight), [], 'English blocks start at the left');
  assert.deepEqual(code.filter((b: any) => b.firstAtRight), [], 'code starts at the left');
  // A paragraph, an item and a cell that are Arabic text themselves are laid out right to left.
  await page.goto(`${url}/sample/`);
  const sample = (await page.evaluate(firstLetters)).filter(Boolean);
  const arabic = sample.filter((b: any) => /^[\u0600-\u06FF]/.test(b.text));
  assert.equal(arabic.length, 3, JSON.stringify(sample));
  assert.deepEqual(arabic.filter((b: any) => !b.firstAtRight), [], 'Arabic blocks start at the right');
  assert.ok(sample.some((b: any) => /^The/.test(b.text) && !b.firstAtRight), 'the English paragraph beside them starts at the left');
  // A link between pages, followed as a reader clicks it.
  await page.goto(`${url}/docs/arabic-parsing.md`);
  await page.click('header a');
  await page.waitForURL(`${url}/docs/`);
  assert.equal(await page.textContent('h1'), 'The hiwar guide');
  assert.deepEqual(errors, []);
});
