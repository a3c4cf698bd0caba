/**
 * Lines the sandbox keeps once voiced (src/sandbox/engines/render-cache.ts): a kept line is the
 * audio a fresh voicing gives, another process sharing the directory reads it instead of voicing
 * it (and voices a new line from the words kept there), and the synthesis limit still holds for a
 * kept line.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { resampleRational } from '../../src/audio/rational-resample.ts';
import { AudioTooLongError, voiceText, type EspeakVoice } from '../../src/sandbox/engines/espeak.ts';
import { RENDER_CACHE_DEFAULTS, lineKey, renderLine, wordFile } from '../../src/sandbox/engines/render-cache.ts';
import { espeakStub } from '../helpers/espeak-stub.ts';

const dir = mkdtempSync(join(tmpdir(), 'hiwar-render-cache-test-'));
const stubs = mkdtempSync(join(tmpdir(), 'hiwar-render-cache-stubs-'));
const saved = RENDER_CACHE_DEFAULTS.dir;
RENDER_CACHE_DEFAULTS.dir = dir;
after(() => {
  RENDER_CACHE_DEFAULTS.dir = saved;
  rmSync(dir, { recursive: true, force: true });
  rmSync(stubs, { recursive: true, force: true });
});

const VOICE: EspeakVoice = { name: 'ar', pitch: 40, wpm: 150 };
const LINE = 'مرحبا بكم، كيف يمكنني مساعدتك اليوم؟';
const digest = (s: Int16Array) => createHash('sha256').update(Buffer.from(s.buffer, s.byteOffset, s.byteLength)).digest('hex');

test('a kept line is the audio and the word times a fresh voicing gives', async () => {
  const fresh = await voiceText(LINE, VOICE, 1.1);
  const expected = resampleRational(fresh.samples, fresh.sampleRate, 24000);
  const first = await renderLine(LINE, VOICE, 1.1, 24000);
  const again = await renderLine(LINE, VOICE, 1.1, 24000);
  for (const r of [first, again]) {
    assert.equal(r.sampleRate, 24000);
    assert.equal(digest(r.samples), digest(expected));
    assert.deepEqual(r.words, fresh.words);
    assert.deepEqual(r.spans, fresh.spans);
  }
  // Another rate or speed is another line.
  const at16k = await renderLine(LINE, VOICE, 1.1, 16000);
  assert.notEqual(at16k.samples.length, first.samples.length);
  assert.equal(readdirSync(dir).filter((f) => f.endsWith('.line')).length, 2, 'both written, nothing partial left');
});

test('another process sharing the directory reads the line rather than voicing it', async () => {
  const line = 'رصيدك الحالي اثنا عشر ألفا';
  const mine = await renderLine(line, VOICE, 1, 8000);
  // The child's espeak-ng only tells its version: it can only answer from the directory.
  const script = `
    const { renderLine } = await import(${JSON.stringify(new URL('../../src/sandbox/engines/render-cache.ts', import.meta.url).href)});
    const r = await renderLine(${JSON.stringify(line)}, ${JSON.stringify(VOICE)}, 1, 8000);
    const { createHash } = await import('node:crypto');
    console.log(JSON.stringify({ digest: createHash('sha256').update(Buffer.from(r.samples.buffer, r.samples.byteOffset, r.samples.byteLength)).digest('hex'), words: r.words.length }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, HIWAR_SANDBOX_RENDER_CACHE: dir, PATH: espeakStub(stubs) },
  });
  assert.deepEqual(JSON.parse(stdout), { digest: digest(mine.samples), words: mine.words.length });
});

test('the synthesis limit holds for a kept line, and a refused line is not kept', async () => {
  const line = 'نعتذر، الخدمة غير متاحة حاليًا. يرجى الاتصال بنا لاحقًا.';
  const kept = await renderLine(line, VOICE, 1, 24000);
  assert.ok(kept.seconds > 1);
  await assert.rejects(renderLine(line, VOICE, 1, 24000, 1), AudioTooLongError);
  const other = 'هذا سطر لم يقل من قبل في هذا الاختبار';
  await assert.rejects(renderLine(other, VOICE, 1, 24000, 0.2), AudioTooLongError);
  const lines = () => readdirSync(dir).filter((f) => f.endsWith('.line')).length;
  const files = lines();
  const voiced = await renderLine(other, VOICE, 1, 24000);
  assert.ok(voiced.seconds > 0.2);
  assert.equal(lines(), files + 1, 'voiced and kept once allowed');
});

test("another process voices a new line from the words kept in the directory: espeak-ng's audio to the sample", async () => {
  // Voiced here word by word (each word kept as a .word file), then said in another order.
  await renderLine('واحد اثنان ثلاثة أربعة', VOICE, 1, 16000);
  const line = 'أربعة ثلاثة، اثنان واحد';
  const fresh = await voiceText(line, VOICE, 1);
  const expected = resampleRational(fresh.samples, fresh.sampleRate, 8000);
  // The child's espeak-ng only tells its version, and the line is new: only the kept words can voice it.
  const script = `
    const { renderLine } = await import(${JSON.stringify(new URL('../../src/sandbox/engines/render-cache.ts', import.meta.url).href)});
    const r = await renderLine(${JSON.stringify(line)}, ${JSON.stringify(VOICE)}, 1, 8000);
    const { createHash } = await import('node:crypto');
    console.log(JSON.stringify({ digest: createHash('sha256').update(Buffer.from(r.samples.buffer, r.samples.byteOffset, r.samples.byteLength)).digest('hex'), words: r.words }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, HIWAR_SANDBOX_RENDER_CACHE: dir, PATH: espeakStub(stubs) },
  });
  assert.deepEqual(JSON.parse(stdout), { digest: digest(expected), words: fresh.words });
  assert.ok(readdirSync(dir).filter((f) => f.endsWith('.word')).length >= 4);
});

test("another espeak-ng version is another set: other keys, and a line kept by the old one is not served", async () => {
  const line = 'هذا سطر قاله إصدار سابق';
  await renderLine(line, VOICE, 1, 8000);
  // A child whose espeak-ng says it is another version (and voices nothing): it computes other keys
  // for the same line and word, and cannot answer with the kept line.
  const script = `
    const { lineKey, renderLine, wordFile } = await import(${JSON.stringify(new URL('../../src/sandbox/engines/render-cache.ts', import.meta.url).href)});
    const line = await lineKey(${JSON.stringify(line)}, ${JSON.stringify(VOICE)}, 1, 8000);
    const word = await wordFile('ar|40|150|1|سطر');
    const said = await renderLine(${JSON.stringify(line)}, ${JSON.stringify(VOICE)}, 1, 8000).then(() => 'served', (err) => err.message);
    console.log(JSON.stringify({ line, word, said }));
  `;
  const child = async (path: string) => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, HIWAR_SANDBOX_RENDER_CACHE: dir, PATH: path },
    });
    return JSON.parse(stdout) as { line: string; word: string; said: string };
  };
  const mine = { line: await lineKey(line, VOICE, 1, 8000), word: await wordFile('ar|40|150|1|سطر') };
  const same = await child(espeakStub(stubs));
  assert.deepEqual(same, { ...mine, said: 'served' }, 'the same espeak-ng: the same keys, the kept line');
  const upgraded = await child(espeakStub(stubs, 'eSpeak NG text-to-speech: 1.52  Data at: /usr/lib/x86_64-linux-gnu/espeak-ng-data'));
  assert.notEqual(upgraded.line, mine.line);
  assert.notEqual(upgraded.word, mine.word);
  assert.match(upgraded.said, /espeak-ng failed \(3\): espeak-ng stand-in: voicing refused/);
});
