import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import { LiveCalls } from '../../src/observability/live-calls.ts';
import { liveCallsRoutes } from '../../src/observability/live-routes.ts';
import { createAgentServer, type AgentServerApp, type RunningSession } from '../../src/server/index.ts';
import { createLogger } from '../../src/session/logger.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { WavFileTransport } from '../../transports/local/wav-file.ts';
import { launchChromium, type Chromium } from '../helpers/chromium.ts';
import { pad, runSandbox, voiced, type Running } from '../helpers/sandbox.ts';
import { within } from '../helpers/deadline.ts';

// The callbacks given to page.evaluate/waitForFunction run in the page; the Node program that
// type-checks this file has no DOM library.
declare const document: any;
declare const window: any;

const OUT = new URL('../../out/', import.meta.url).pathname;
const LINE = 'أريد معرفة رصيد حسابي';
const SECRET = 'operator-secret-1';

let sb: Running;
let app: AgentServerApp;
let chrome: Chromium;
const sessions: RunningSession[] = [];
const live = new LiveCalls();
const clock = new SteadyScaledClock(1);

before(async () => {
  sb = await runSandbox();
  await mkdir(OUT, { recursive: true });
  // The caller says one line, then stays on the line (a ceiling, not a timing: the test ends the call).
  await writeFile(`${OUT}live-caller.wav`, encodeWav(pad(await voiced(sb.client, LINE, 16000, 'ar-uae-male-1'), 16000, 1, 0.5), 16000));
  app = await createAgentServer({
    agent: callCentre,
    client: sb.client,
    clock,
    logger: createLogger('silent'),
    wrapSessions: (inner) =>
      live.sessions(async (t) => {
        const s = await inner(t);
        sessions.push(s);
        return s;
      }),
    plugins: [liveCallsRoutes({ calls: () => live.list(), secret: SECRET })],
  });
  chrome = await launchChromium(`${OUT}live-caller.wav`);
});

after(async () => {
  await chrome?.close();
  await app?.close();
  clock.stop();
  await sb?.close();
});

test('the live calls page in headless Chromium during a running call: listed with its state, the caller’s line and the agent’s (the closing line named), right to left, no console errors, fits a phone', async () => {
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  const transport = await WavFileTransport.open(`${OUT}live-caller.wav`, { clock, tailMs: 600_000 });
  const outcome = app.host.runCall(transport);
  const page = await chrome.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  // The secret in the fragment: never sent to the server, dropped from the address bar by the page.
  await page.goto(`${url}/calls/live#secret=${SECRET}`);
  await within(page.waitForSelector('li.call', { timeout: 0 }), 30_000, 'the call listed on the page');
  // The caller's line recognized and answered: the card shows it and a latency bar.
  await within(page.waitForFunction((line: string) => document.querySelector('li.call .line')?.textContent === line && document.querySelectorAll('li.call .bars span').length >= 1, LINE, { timeout: 0 }), 120_000, "the caller's line and a latency bar on the card");
  const seen = await page.evaluate(() => {
    const card = document.querySelector('li.call');
    return {
      dir: document.documentElement.dir,
      lineDirection: window.getComputedStyle(card.querySelector('.line')).direction,
      state: card.dataset.state,
      stateLabel: card.querySelector('.state').textContent,
      agent: card.querySelector('strong').textContent,
      id: card.querySelector('.id').textContent,
      note: card.textContent.includes('الاستماع متاح لمكالمات الويب فقط'),
      address: window.location.href,
      loginShown: document.getElementById('login').getBoundingClientRect().height > 0,
    };
  });
  await page.screenshot({ path: `${OUT}live-calls.png`, fullPage: true });
  await page.setViewportSize({ width: 375, height: 740 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.screenshot({ path: `${OUT}live-calls-phone.png`, fullPage: true });

  assert.deepEqual(errors, []);
  assert.equal(seen.dir, 'rtl');
  assert.equal(seen.lineDirection, 'rtl', 'the caller’s Arabic line reads right to left');
  assert.ok(['listening', 'thinking', 'speaking'].includes(seen.state), `a call in progress, got ${seen.state}`);
  assert.equal(seen.stateLabel, { listening: 'يستمع', thinking: 'يفكّر', speaking: 'يتحدّث' }[seen.state as 'listening']);
  assert.equal(seen.agent, callCentre.name);
  assert.match(seen.id, new RegExp(transport.call.callId));
  assert.ok(seen.note, 'a call that is not a web call says listening in is for web calls');
  assert.ok(!seen.address.includes(SECRET), 'the secret left the address bar');
  assert.equal(seen.loginShown, false, 'the secret form hides once the calls show');
  assert.ok(overflow <= 0, `fits a phone's width (overflow ${overflow} px)`);

  // The agent's last line is on the card beside the caller's.
  await within(page.waitForFunction(() => (document.querySelector('li.call .line.agent')?.textContent ?? '').length > 0, undefined, { timeout: 0 }), 30_000, "the agent's line on the card");
  // A call whose tool threw (listed by hand beside the real one): its card says what failed, in
  // which part, how many times, without ending it.
  const failing = live.add({ callId: 'CA-failing', provider: 'twilio', parameters: {} }, 'bank');
  live.update(failing, { type: 'error', source: 'agent', kind: 'tool', tool: 'block_card', message: "the agent's code threw an error (tool block_card)", fatal: false });
  await within(page.waitForSelector('li.call[data-call="twilio:CA-failing"] .failure', { timeout: 0 }), 30_000, 'the failure on the failing call’s card');
  const failure = await page.evaluate(() => {
    const f = document.querySelector('li.call[data-call="twilio:CA-failing"] .failure');
    return { tag: f.querySelector('.tag').textContent, message: f.querySelector('bdi').textContent, fatal: f.classList.contains('fatal'), onTheRealCall: document.querySelectorAll('li.call .failure').length };
  });
  assert.deepEqual(failure, { tag: 'خلل (1) في كود الوكيل: ', message: "the agent's code threw an error (tool block_card)", fatal: false, onTheRealCall: 1 });
  await page.screenshot({ path: `${OUT}live-calls-failure.png`, fullPage: true });
  live.update(failing, { type: 'ended', reason: 'caller hung up' });
  // A call whose agent waits on a tool (listed by hand): its card names the tool and since when, until it finishes.
  const waiting = live.add({ callId: 'CA-tool', provider: 'twilio', parameters: {} }, 'bank');
  live.update(waiting, { type: 'tool_started', name: 'get_balance', callId: 'call_1', args: {}, reply: 2 });
  await within(page.waitForSelector('li.call[data-call="twilio:CA-tool"] .tools', { timeout: 0 }), 30_000, 'the running tool on its card');
  const tool = await page.evaluate(() => {
    const t = document.querySelector('li.call[data-call="twilio:CA-tool"] .tools');
    return { tag: t.querySelector('.tag').textContent, name: t.querySelector('bdi').textContent, text: t.textContent, elsewhere: document.querySelectorAll('li.call .tools').length };
  });
  assert.deepEqual([tool.tag, tool.name, tool.elsewhere], ['أداة تعمل الآن: ', 'get_balance', 1]);
  assert.match(tool.text, /منذ .+ \(\d+ ث\)$/, `since when, and for how long: ${tool.text}`);
  await page.screenshot({ path: `${OUT}live-calls-tool.png`, fullPage: true });
  live.update(waiting, { type: 'tool', outcome: { call: { id: 'call_1', name: 'get_balance', arguments: '{}' }, result: { balance: 1 }, ms: 900 }, reply: 2 });
  await within(page.waitForFunction(() => !document.querySelector('li.call[data-call="twilio:CA-tool"] .tools'), undefined, { timeout: 0 }), 30_000, 'the tool gone from the card once it finished');
  live.update(waiting, { type: 'ended', reason: 'caller hung up' });
  // The call ends with its closing line (a drain out of time): shown, named, while it plays.
  const ending = sessions[0]!.endWithLine!('server shutting down');
  await within(
    page.waitForFunction((line: string) => document.querySelector('li.call .line.fixed')?.textContent?.includes(line) === true, callCentre.outOfServiceLine, { timeout: 0 }),
    30_000,
    'the closing line on the card',
  );
  const tag = await page.evaluate(() => document.querySelector('li.call .line.fixed .tag')?.textContent);
  assert.match(String(tag), /رسالة الختام/, 'named as the closing line');
  await page.screenshot({ path: `${OUT}live-calls-closing.png`, fullPage: true });
  await ending;
  // The call has ended: it leaves the page.
  await outcome;
  await within(page.waitForSelector('#empty:not([hidden])', { timeout: 0 }), 30_000, 'the empty list after the call ended');
  await page.close();
});
