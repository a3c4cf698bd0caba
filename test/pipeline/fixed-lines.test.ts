import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FixedLineCache, type FixedLineKey, type RenderedAudio } from '../../src/pipeline/fixed-lines.ts';

const key = (over: Partial<FixedLineKey> = {}): FixedLineKey => ({ modelId: 'tts-1', voiceId: 'v1', sampleRate: 24000, text: 'نعتذر', ...over });
const audio = (n: number): RenderedAudio => ({ samples: new Int16Array(n), sampleRate: 24000 });

test('a line is rendered once and shared, also while its rendering is under way', async () => {
  const cache = new FixedLineCache();
  let renders = 0;
  const render = async () => {
    renders++;
    await new Promise((r) => setTimeout(r, 20));
    return audio(10);
  };
  const [a, b] = await Promise.all([cache.get(key(), render), cache.get(key(), render)]);
  const c = await cache.get(key(), render);
  assert.equal(renders, 1);
  assert.equal(a, b);
  assert.equal(a, c);
});

test('another voice, model, rate, speed or text renders anew', async () => {
  const cache = new FixedLineCache();
  let renders = 0;
  const render = async () => audio(++renders);
  await cache.get(key(), render);
  for (const over of [{ voiceId: 'v2' }, { modelId: 'tts-2' }, { sampleRate: 16000 }, { speed: 1.2 }, { text: 'شكرا' }]) await cache.get(key(over), render);
  assert.equal(renders, 6);
  assert.equal((await cache.get(key({ voiceId: 'v2' }), render)).samples.length, 2, 'the v2 rendering is kept');
  assert.equal(renders, 6);
});

test('a failed rendering is not kept: the next call renders again', async () => {
  const cache = new FixedLineCache();
  let renders = 0;
  await assert.rejects(cache.get(key(), async () => {
    renders++;
    throw new Error('429');
  }), /429/);
  assert.equal(cache.size, 0);
  const ok = await cache.get(key(), async () => {
    renders++;
    return audio(5);
  });
  assert.equal(ok.samples.length, 5);
  assert.equal(renders, 2);
});

test('bounded: the least recently used rendering goes first', async () => {
  const cache = new FixedLineCache(2);
  let renders = 0;
  const render = async () => audio(++renders);
  await cache.get(key({ text: 'a' }), render);
  await cache.get(key({ text: 'b' }), render);
  await cache.get(key({ text: 'a' }), render); // a is now the most recent
  await cache.get(key({ text: 'c' }), render); // b goes
  assert.equal(cache.size, 2);
  assert.equal(renders, 3);
  await cache.get(key({ text: 'a' }), render);
  assert.equal(renders, 3, 'a was kept');
  await cache.get(key({ text: 'b' }), render);
  assert.equal(renders, 4, 'b was dropped and renders again');
});
