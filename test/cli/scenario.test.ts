import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadScenario } from '../../src/testing/scenario.ts';

const dir = mkdtempSync(join(tmpdir(), 'hiwar-scenario-'));
const file = (name: string, data: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(data));
  return path;
};
const failure = (path: string) => loadScenario(path).then(() => assert.fail('loaded'), (err: Error) => err.message);

test('the shipped scenario loads', async () => {
  const s = await loadScenario(new URL('../../agents/call-centre/scenario.json', import.meta.url).pathname);
  assert.equal(s.sampleRate, 16000);
  assert.ok(s.steps.length >= 4);
});

test('a bad step names what is wrong with the kind of step it is, not just "Invalid input"', async () => {
  const say = file('say.json', { steps: [{ say: 'مرحبا' }, { say: 5 }] });
  assert.equal(await failure(say), `scenario ${say}: steps.1.say: Invalid input: expected string, received number`);
  const hum = file('hum.json', { steps: [{ sound: 'hum' }] });
  assert.match(await failure(hum), /: steps\.0\.bargeInAfterMs: Invalid input: expected number/);
  const dtmf = file('dtmf.json', { steps: [{ dtmf: '12x' }] });
  assert.match(await failure(dtmf), /: steps\.0\.dtmf: /);
});

test('a step of no known kind lists the shapes a step may have', async () => {
  const path = file('unknown.json', { steps: [{ text: 'مرحبا' }] });
  const message = await failure(path);
  assert.match(message, /: steps\.0: not a step; a step is \{"say": "…"/);
  for (const key of ['"sound": "hum"', '"dtmf"', '"hangup": true']) assert.ok(message.includes(key), key);
});

test('a wrong sample rate says which rates work', async () => {
  const path = file('rate.json', { sampleRate: 44100, steps: [{ say: 'مرحبا' }] });
  assert.equal(await failure(path), `scenario ${path}: sampleRate: must be 8000 or 16000`);
});

test('a file holding only the steps (an array, as runCall takes them) loads with the defaults', async () => {
  const path = file('steps.json', [{ say: 'أريد حجز موعد' }, { dtmf: '1#' }, { hangup: true }]);
  const s = await loadScenario(path);
  assert.deepEqual(s.steps, [{ say: 'أريد حجز موعد' }, { dtmf: '1#' }, { hangup: true }]);
  assert.equal(s.callerVoice, 'ar-uae-male-1');
  assert.equal(s.sampleRate, 16000);
});

test('a file that is neither steps nor a scenario says what a scenario is, not "expected object"', async () => {
  const path = file('string.json', 'أريد حجز موعد');
  assert.equal(await failure(path), `scenario ${path}: a scenario is an array of steps, or {"steps": [...], "callerVoice"?, "sampleRate"?, "description"?}, got string`);
  const empty = file('empty.json', []);
  assert.match(await failure(empty), /: steps: Too small: expected array to have >=1 items/);
});
