/**
 * `hiwar call` as a user runs it, as its own process: on a running server (`--server`, the
 * server's calls API) and with a server of its own (the platform reaches it at --public-url),
 * each against the fake platforms, to an outcome printed on one line.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import callCentre from '../../../agents/call-centre/index.ts';
import { createAgentServer, type AgentServerApp } from '../../../src/server/index.ts';
import { createLogger } from '../../../src/session/logger.ts';
import { outboundCalls, telephonyRoutes, twilioOutbound } from '../../../transports/telephony/index.ts';
import { freePort } from '../../helpers/redis.ts';
import { runSandbox, type Running } from '../../helpers/sandbox.ts';
import { FakePlatforms, testKeys } from './fake-platforms.ts';

const BIN = new URL('../../../bin/hiwar.js', import.meta.url).pathname;
const run = promisify(execFile);
const SECRET = 'cli-calls-secret-0123456789abcdef';
const keys = testKeys();

let fake: FakePlatforms;
let sandbox: Running;
let app: AgentServerApp;
let url: string;

/** The environment of a user with no service key and only the credentials a test gives. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, HIWAR_LOG_LEVEL: 'silent', ...extra };
  for (const k of ['HIWAR_API_KEY', 'TWILIO_ACCOUNT_SID', 'TELNYX_API_KEY', 'PLIVO_AUTH_ID', 'VONAGE_APPLICATION_ID', 'HIWAR_PUBLIC_URL', 'REDIS_URL']) if (!(k in extra)) delete e[k];
  return e;
}

before(async () => {
  // Nobody answers in these calls: the command's path, not the media, is under test here.
  fake = await new FakePlatforms(keys, { scenario: (to) => (to.endsWith('2') ? 'busy' : 'no-answer'), onMedia: async () => {} }).start();
  sandbox = await runSandbox();
  const outbound = outboundCalls({ platforms: { twilio: twilioOutbound({ ...keys.twilio, baseUrl: fake.url }) }, secret: SECRET, from: '+966110000000', secrets: { twilio: keys.twilio.authToken } });
  app = await createAgentServer({ agent: callCentre, client: sandbox.client, logger: createLogger('silent'), plugins: [telephonyRoutes(), outbound.routes] });
  url = (await app.listen({ port: 0 })).url;
});
after(async () => {
  await app?.close();
  await sandbox?.close();
  await fake?.close();
});

test('hiwar call --help lists its options; a missing number or a malformed --var is a usage error', async () => {
  const help = (await run(process.execPath, [BIN, 'call', '--help'], { env: env() })).stdout;
  for (const flag of ['--agent', '--from', '--platform', '--var', '--server', '--public-url', '--port', '--host', '--ring-timeout']) assert.ok(help.includes(flag), flag);
  const noNumber = await run(process.execPath, [BIN, 'call', '--platform', 'twilio'], { env: env() }).catch((e) => e);
  assert.equal(noNumber.code, 2);
  assert.match(noNumber.stderr, /give the number to call/);
  // A number that is not E.164 is the error told, before the missing --public-url.
  const badNumber = await run(process.execPath, [BIN, 'call', '12345'], { env: env() }).catch((e) => e);
  assert.equal(badNumber.code, 2);
  assert.match(badNumber.stderr, /the number to call must be E\.164 .*got "12345"/);
  assert.doesNotMatch(badNumber.stderr.split('\n')[0]!, /public-url/);
  const badVar = await run(process.execPath, [BIN, 'call', '+966500000002', '--var', 'name'], { env: env() }).catch((e) => e);
  assert.equal(badVar.code, 2);
  assert.match(badVar.stderr, /--var takes name=value, got "name"/);
});

test('hiwar call with a server of its own stops before starting it when no call could be placed: no caller ID, no platform', async () => {
  const call = ['call', '+966500000002', '--public-url', 'https://agent.example.com', '--port', '0'];
  const none = { HIWAR_CALL_FROM: '', HIWAR_CALL_PLATFORM: '' };
  const noFrom = await run(process.execPath, [BIN, ...call], { env: env(none) }).catch((e) => e);
  assert.equal(noFrom.code, 1);
  assert.match(noFrom.stderr, /no caller ID: give --from \(or set HIWAR_CALL_FROM\)/);
  assert.doesNotMatch(noFrom.stdout, /hiwar call: (agent|starting)/, 'no server was started');
  const noPlatform = await run(process.execPath, [BIN, ...call, '--from', '+966110000000'], { env: env(none) }).catch((e) => e);
  assert.equal(noPlatform.code, 1);
  assert.match(noPlatform.stderr, /no platform is configured for outbound calls: set the credentials of one \(TWILIO_ACCOUNT_SID \+ TWILIO_AUTH_TOKEN/);
  assert.doesNotMatch(noPlatform.stdout, /hiwar call: (agent|starting)/, 'no server was started');
});

test('hiwar call --server: placed on a running server with its secret, followed to the outcome', async () => {
  const { stdout } = await run(process.execPath, [BIN, 'call', '+966500000002', '--server', url, '--platform', 'twilio', '--var', 'name=منى'], { env: env({ HIWAR_CALLS_SECRET: SECRET }) });
  assert.match(stdout, /placed out-[\w-]+ through twilio/);
  assert.match(stdout, /out-[\w-]+: busy \(twilio: busy\)/);
  const sent = fake.received.at(-1)!;
  assert.equal(sent.form!.get('To'), '+966500000002');
  assert.match(sent.form!.get('Twiml')!, /<Parameter name="name" value="منى"\/>/);
  const wrong = await run(process.execPath, [BIN, 'call', '+966500000002', '--server', url, '--platform', 'twilio'], { env: env({ HIWAR_CALLS_SECRET: 'wrong' }) }).catch((e) => e);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /answered 401: wrong or missing bearer secret/);
});

test('hiwar call with a server of its own: credentials from the environment, the platform calls back at --public-url', async () => {
  const port = await freePort();
  const { stdout } = await run(
    process.execPath,
    [BIN, 'call', '+966500000003', '--port', String(port), '--public-url', `http://127.0.0.1:${port}`, '--ring-timeout', '20'],
    { env: env({ TWILIO_ACCOUNT_SID: keys.twilio.accountSid, TWILIO_AUTH_TOKEN: keys.twilio.authToken, HIWAR_TWILIO_API_URL: fake.url, HIWAR_CALL_FROM: '+966110000000' }) },
  );
  // Said first, before the seconds of loading and the sandbox: then what the sandbox is taught, where it runs, then the outcome.
  const lines = stdout.trim().split('\n');
  assert.match(lines[0]!, /^hiwar call: starting a server for the call, with the embedded sandbox \(no HIWAR_API_KEY\); seconds, up to a minute on a busy machine…$/);
  // The embedded sandbox is taught the agent's intent examples, as hiwar serve's is.
  assert.match(lines[1]!, /^\(no HIWAR_API_KEY: starting the embedded sandbox and teaching its recognizer \d+ phrases?…/);
  assert.match(lines[2]!, /^hiwar call: agent "call-centre" at http:\/\/127\.0\.0\.1:\d+, reached as http:\/\/127\.0\.0\.1:\d+; the embedded sandbox at http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
  assert.match(stdout, /out-[\w-]+: no-answer \(twilio: no-answer\)/);
  const sent = fake.received.at(-1)!;
  assert.equal(sent.form!.get('Timeout'), '20');
  assert.ok(sent.form!.get('StatusCallback')!.startsWith(`http://127.0.0.1:${port}/outbound/twilio/status/`));
  assert.ok(!stdout.includes(keys.twilio.authToken));
});

