import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { hiwar } from '../helpers/processes.ts';

/**
 * The reproductions docs/troubleshooting.md gives a new user, run as written: `hiwar sandbox
 * --keys examples/sandbox/keys.json` in one process, `hiwar demo` with one of its keys in another.
 */
const ROOT = new URL('../..', import.meta.url).pathname;

describe('hiwar demo against the example keys', () => {
  let sandbox: ChildProcess;
  let url: string;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hiwar-wallet-'));
    sandbox = spawn(process.execPath, ['bin/hiwar.js', 'sandbox', '--port', '0', '--keys', 'examples/sandbox/keys.json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      sandbox.stdout!.on('data', (c) => {
        out += c;
        const m = /serving (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      sandbox.once('close', () => reject(new Error(`sandbox exited: ${out}`)));
    });
  });
  after(async () => {
    sandbox.kill('SIGINT');
    rmSync(dir, { recursive: true, force: true });
  });

  const demo = (key: string, out: string, env: Record<string, string> = {}) =>
    hiwar(['demo', '--speed', '3', '--out', join(dir, out)], { HIWAR_API_KEY: key, HIWAR_BASE_URL: url, HIWAR_REGION: '', HIWAR_LOG_FORMAT: '', ...env }, 180_000);
  const noJsonLogs = (stderr: string) => assert.doesNotMatch(stderr, /^\{"level"/m, 'log lines are for people, not pino JSON');

  test('an empty wallet: nothing can be voiced, so the demo stops before the call with one line and exit 1', async () => {
    const r = await demo('sk-example-empty-wallet', 'empty');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^hiwar demo: the account's wallet is empty \(402 [^\n]*\): top it up in the service's console\n$/);
    assert.ok(!existsSync(join(dir, 'empty', 'report.json')), 'no call, no report');
  });

  test('a wallet that runs out mid-call: the caller hears the out-of-service line, the report says so, exit 1', async () => {
    const r = await demo('sk-example-low-wallet', 'low');
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const report = JSON.parse(readFileSync(join(dir, 'low', 'report.json'), 'utf8'));
    assert.match(report.ended, /^out of service: speech (synthesis|recognition) stopped: the wallet is empty/);
    const closing = report.turns.findLast((t: { role: string; text: string }) => t.role === 'agent' && t.text === callCentre.outOfServiceLine);
    assert.ok(closing, `the out-of-service line was said: ${JSON.stringify(report.turns)}\n${r.stdout}`);
    assert.equal(closing.heardText, callCentre.outOfServiceLine, 'played whole');
    assert.ok(!report.turns.some((t: { role: string; at: number }) => t.role === 'user' && t.at > closing.at), 'nothing was taken from the caller after it');
    assert.equal(closing.line, 'out_of_service', "the report names it apart from the model's replies");
    assert.equal(r.stdout.split(`الوكيل  ◂ [out-of-service line] ${callCentre.outOfServiceLine}`).length - 1, 1, 'the transcript shows the closing line, once (it is told as any line now), tagged');
    assert.match(r.stderr, /\nhiwar demo: the call ended out of service: speech (synthesis|recognition) stopped: the wallet is empty[^\n]*\n$/, 'the last line says why');
    assert.match(r.stderr, /^\d\d:\d\d:\d\d warn speech (synthesis|recognition) stopped: the wallet is empty/m);
    noJsonLogs(r.stderr);
  });

  test('a key without /listen: readable warnings, an out-of-service end, exit 1', async () => {
    const r = await demo('sk-example-tts-only-0001', 'tts-only');
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const refused = 'speech recognition refused the API key or its access \\(close 1008: access denied: this key cannot call /listen\\): the service refused the API key: set the right one in HIWAR_API_KEY';
    assert.match(r.stderr, new RegExp(`^\\d\\d:\\d\\d:\\d\\d warn ${refused}[^\\n]* \\(agent=call-centre, source=stt, kind=auth, `, 'm'));
    assert.match(r.stderr, new RegExp(`\\nhiwar demo: the call ended out of service: ${refused}[^\\n]*HIWAR_REGION[^\\n]*\\n$`));
    noJsonLogs(r.stderr);
    const report = JSON.parse(readFileSync(join(dir, 'tts-only', 'report.json'), 'utf8'));
    assert.match(report.ended, /^out of service: /);
    // The key has one concurrent session: the line is rendered before the call (the call's own
    // rendering raced the greeting's synthesis and was refused 429), so the caller hears it.
    assert.doesNotMatch(r.stderr, /not prepared|not rendered|429/, 'the line was rendered');
    const closing = report.turns.at(-1);
    assert.deepEqual([closing?.role, closing?.heardText], ['agent', callCentre.outOfServiceLine], `the caller heard the line: ${JSON.stringify(report.turns)}`);
  });

  test('a key of the other region: the refusal names the region asked and the variable that changes it', async () => {
    const uaeKeyAsGlobal = await demo('sk-example-uae-0001', 'uae');
    assert.equal(uaeKeyAsGlobal.code, 1);
    assert.match(uaeKeyAsGlobal.stderr, /^hiwar demo: the service refused the key \(401 [^\n]*\): check HIWAR_API_KEY \(asked in the global region: a key issued in the UAE region needs HIWAR_REGION=uae\), or unset it to use the local sandbox\n$/);
    const globalKeyAsUae = await demo('sk-example-global-0001', 'global', { HIWAR_REGION: 'uae', HIWAR_UAE_BASE_URL: url.replace('/api/v1', '/uae/api/v1') });
    assert.equal(globalKeyAsUae.code, 1);
    assert.match(globalKeyAsUae.stderr, /\(asked in the UAE region, HIWAR_REGION=uae: a global key needs HIWAR_REGION unset\)/);
    assert.doesNotMatch(uaeKeyAsGlobal.stderr + globalKeyAsUae.stderr, /sk-example/, 'the key is never printed');
  });
});
