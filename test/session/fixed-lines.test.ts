/**
 * The out-of-service line is rendered once per process and client, not by every call: the calls
 * of one server share the rendering, a call in another voice renders its own, and a call with the
 * line already rendered holds only its two sockets of the key's sessions.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { ServiceClient } from '../../src/service/index.ts';
import { prepareFixedLines } from '../../src/session/prepare-fixed-lines.ts';
import { normalizeForSpeech } from '../../src/text/normalize.ts';
import { call } from '../helpers/call.ts';
import { until } from '../helpers/deadline.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

const KEY = 'sk-fixed-lines-001';
let sb: Running;
before(async () => {
  sb = await runSandbox({ keys: [{ key: KEY, credits: 1e9, concurrency: 16 }] });
});
after(() => sb.close());

/** A client as a server has one, counting the HTTP syntheses of each text. */
function countingClient(): { client: ServiceClient; syntheses: (text: string) => number } {
  const client = new ServiceClient({ apiKey: KEY, baseUrl: sb.sandbox.url, maxRetries: 0 });
  const texts: string[] = [];
  const synthesize = client.synthesizeStream;
  client.synthesizeStream = (model, req, o) => {
    texts.push(req.text);
    return synthesize(model, req, o);
  };
  return { client, syntheses: (text) => texts.filter((t) => t === text).length };
}

const LINE = normalizeForSpeech(callCentre.outOfServiceLine);
const key = () => sb.sandbox.state.keys.lookup(KEY, 'global')!;
const oneLine = [{ say: 'مرحبا' }, { hangup: true as const, pauseMs: 500 }];

async function idle(): Promise<void> {
  await until(() => key().active === 0, 'every session of the last call to close');
}

test('calls sharing a client render the out-of-service line once; another voice renders its own', async () => {
  const { client, syntheses } = countingClient();
  await Promise.all([call(client, oneLine), call(client, oneLine)]);
  await call(client, oneLine);
  assert.equal(syntheses(LINE), 1, 'three calls, one rendering');
  await call(client, oneLine, { agent: { voice: { voice_id: 'ar-najdi-male-2' } } });
  assert.equal(syntheses(LINE), 2, 'a different voice renders anew');
});

test('with the line rendered at start-up, a call holds only its /listen and TTS sockets', async () => {
  const { client, syntheses } = countingClient();
  await prepareFixedLines(client, callCentre);
  assert.equal(syntheses(LINE), 1);
  await idle();
  key().peak = 0;
  const c = await call(client, oneLine);
  assert.ok(c.report.turns.some((t) => t.role === 'agent'), 'the agent spoke');
  assert.equal(syntheses(LINE), 1, 'the call did not render it again');
  assert.equal(key().peak, 2, 'two sessions of the key at most: /listen and the TTS socket');
  assert.equal(key().refused, 0);
});
