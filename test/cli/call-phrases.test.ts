/**
 * `hiwar call` and `hiwar campaign start` on the embedded sandbox teach its recognizer what
 * `hiwar serve` teaches it (the agent's intent examples and --phrasebook): the same agent hears
 * the same lines whether it is served or places the call. Each command runs as its own process
 * against a faked Twilio whose answered call streams a caller back over Twilio's media protocol.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { realClock } from '../../src/transport/clock.ts';
import { hiwar } from '../helpers/processes.ts';
import { freePort } from '../helpers/redis.ts';
import { pad, runSandbox, voiced } from '../helpers/sandbox.ts';
import { SHOP_AGENT, userProject } from '../helpers/user-project.ts';
import { FarEnd, quietAfter } from '../telephony/far-end.ts';
import { FakePlatforms, testKeys, type MediaLeg } from '../telephony/outbound/fake-platforms.ts';

const keys = testKeys();
/** The agent's intent example, then a --phrasebook line: neither is anything the server's sandbox voices itself. */
const LINES = ['أين طلبي', 'أريد التحدث مع موظف'];

let lines: Int16Array[];
/** Per answered call: for each caller line, whether the agent answered it. */
const answered: boolean[][] = [];
let onMedia: (leg: MediaLeg) => Promise<void> = async () => {};
let fake: FakePlatforms;

before(async () => {
  // The caller's lines, voiced by another sandbox in another voice, at Twilio's 8 kHz.
  const voice = await runSandbox();
  lines = await Promise.all(LINES.map(async (t) => pad(await voiced(voice.client, t, 8000, 'ar-najdi-male-2'), 8000, 0.2, 1.5)));
  await voice.close();
  fake = await new FakePlatforms(keys, { scenario: () => 'answer', onMedia: (leg) => onMedia(leg) }).start();
});
after(() => fake?.close());

/** The caller: after the greeting, says each line and notes whether the agent answered it; then hangs up. */
async function caller(leg: MediaLeg): Promise<void> {
  const far = new FarEnd(leg.streamUrl, leg.protocol, realClock());
  await far.start();
  const heard: boolean[] = [];
  answered.push(heard);
  try {
    await quietAfter(far, 0.5); // the greeting
    for (const line of lines) {
      const before = far.played;
      await far.say(line);
      // An answer is the proof the line became a turn; the limit only ends a broken build's wait.
      heard.push(await far.until(() => far.played > before + 0.3, 30_000).then(() => true, () => false));
      await quietAfter(far, 0);
    }
  } finally {
    far.hangup();
  }
}

/** The environment of a user with Twilio's credentials (its API faked) and no service key. */
const env = () => ({ HIWAR_API_KEY: '', HIWAR_LOG_LEVEL: 'warn', TWILIO_ACCOUNT_SID: keys.twilio.accountSid, TWILIO_AUTH_TOKEN: keys.twilio.authToken, HIWAR_TWILIO_API_URL: fake.url, HIWAR_CALL_FROM: '+966110000000', REDIS_URL: '' });

test("hiwar call: the embedded sandbox hears the agent's intent examples and the --phrasebook lines", async () => {
  const dir = userProject({ 'agent.ts': SHOP_AGENT, 'phrases.txt': `${LINES[1]}\n\n` });
  onMedia = caller;
  answered.length = 0;
  const port = await freePort();
  const r = await hiwar(['call', '+966500000007', '--agent', 'agent.ts', '--phrasebook', 'phrases.txt', '--port', String(port), '--public-url', `http://127.0.0.1:${port}`], env(), 300_000, dir);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /teaching its recognizer 2 phrases/);
  assert.match(r.stdout, /out-[\w-]+: completed/);
  // Under the outcome, what the call's session learnt: how it ended and what was said.
  assert.match(r.stdout, /^ {2}ended: caller hung up$/m);
  assert.match(r.stdout, new RegExp(`^  caller: ${LINES[0]}$`, 'm'));
  assert.deepEqual(answered, [[true, true]], `the agent answered each line it was taught, in a placed call as served\n${r.stdout}\n${r.stderr}`);
});

test('hiwar campaign start (in this process): the embedded sandbox is taught the same', async () => {
  const dir = userProject({ 'agent.ts': SHOP_AGENT, 'phrases.txt': `${LINES[1]}\n`, 'contacts.csv': 'number\n+966500000008\n' });
  onMedia = caller;
  answered.length = 0;
  const port = await freePort();
  const r = await hiwar(['campaign', 'start', 'contacts.csv', '--retries', '0', '--agent', 'agent.ts', '--phrasebook', 'phrases.txt', '--results', 'out.csv', '--port', String(port), '--public-url', `http://127.0.0.1:${port}`], env(), 300_000, dir);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /teaching its recognizer 2 phrases/);
  assert.match(r.stdout, /outcomes: completed 1/);
  assert.deepEqual(answered, [[true, true]], `${r.stdout}\n${r.stderr}`);
});

