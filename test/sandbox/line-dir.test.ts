/**
 * The bound of the sandbox's directory of voiced lines (src/sandbox/line-dir.ts) and where the CLI
 * keeps that directory by default (src/sandbox/voiced-lines.ts).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { voicedLinesDir } from '../../src/sandbox/voiced-lines.ts';
import type { EspeakVoice } from '../../src/sandbox/engines/espeak.ts';
import { RENDER_CACHE_DEFAULTS, renderLine } from '../../src/sandbox/engines/render-cache.ts';
import { LINE_DIR_DEFAULTS, pruneLineDir, touchLine } from '../../src/sandbox/line-dir.ts';
import { espeakStub } from '../helpers/espeak-stub.ts';
import { runSandboxProcess } from '../helpers/sandbox-process.ts';

const root = mkdtempSync(join(tmpdir(), 'hiwar-line-dir-test-'));
after(() => rmSync(root, { recursive: true, force: true }));

const sizeOf = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.line')).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);

test('past the bound the least recently used lines go, a line read lately stays, a dead writer\'s partial file goes', async () => {
  const dir = join(root, 'prune');
  mkdirSync(dir);
  const now = Date.now();
  // Lines a (oldest) to f (newest), 1000 bytes each, written a minute apart.
  for (const [i, name] of ['a', 'b', 'c', 'd', 'e', 'f'].entries()) {
    writeFileSync(join(dir, `${name}.line`), Buffer.alloc(1000));
    const t = new Date(now - (10 - i) * 60_000);
    utimesSync(join(dir, `${name}.line`), t, t);
  }
  writeFileSync(join(dir, 'a.line.1.x.partial'), Buffer.alloc(10));
  utimesSync(join(dir, 'a.line.1.x.partial'), new Date(now - LINE_DIR_DEFAULTS.partialAgeMs - 1000), new Date(now - LINE_DIR_DEFAULTS.partialAgeMs - 1000));
  writeFileSync(join(dir, 'b.line.2.y.partial'), Buffer.alloc(10)); // being written now
  writeFileSync(join(dir, 'notes.txt'), 'not a line');
  await touchLine(join(dir, 'a.line')); // the oldest line was just read: used now

  assert.deepEqual(await pruneLineDir(dir, 6000, now), { removed: 1, bytes: 6000 }, 'within the bound: only the dead partial goes');
  const { removed, bytes } = await pruneLineDir(dir, 5000, now);
  assert.ok(bytes <= 5000 * LINE_DIR_DEFAULTS.keepShare, `pruned to ${bytes} bytes`);
  assert.equal(removed, 3);
  assert.deepEqual(readdirSync(dir).sort(), ['a.line', 'b.line.2.y.partial', 'e.line', 'f.line', 'notes.txt'], 'b, c, d (least recently used) gone; a (read) and the newest kept');
  assert.deepEqual(await pruneLineDir(join(root, 'missing'), 1), { removed: 0, bytes: 0 }, 'no directory yet: nothing to do');
});

test('the sandbox voicing line after line keeps its directory within the bound', async (t) => {
  const dir = join(root, 'voiced');
  const saved = { ...RENDER_CACHE_DEFAULTS };
  t.after(() => Object.assign(RENDER_CACHE_DEFAULTS, saved));
  const voice: EspeakVoice = { name: 'ar', pitch: 40, wpm: 150 };
  RENDER_CACHE_DEFAULTS.dir = dir;
  // Each line is a few tens of KiB at 16 kHz: a bound of about three lines.
  const first = await renderLine('واحد اثنان ثلاثة', voice, 1, 16000);
  const oneLine = first.samples.byteLength;
  RENDER_CACHE_DEFAULTS.diskBytes = oneLine * 3;
  const lines = ['رصيدك اثنا عشر ألفا', 'موعدك يوم الأحد', 'تم إيقاف البطاقة', 'الفرع مفتوح حتى الخامسة', 'شكرا لاتصالك', 'نعتذر عن التأخير'];
  for (const text of lines) {
    await renderLine(text, voice, 1, 16000);
    assert.ok(sizeOf(dir) <= RENDER_CACHE_DEFAULTS.diskBytes * 1.2, `after "${text}": ${sizeOf(dir)} bytes, bound ${RENDER_CACHE_DEFAULTS.diskBytes}`);
  }
  const kept = readdirSync(dir).filter((f) => f.endsWith('.line'));
  assert.ok(kept.length >= 1 && kept.length < lines.length + 1, `${kept.length} lines kept of ${lines.length + 1} voiced`);
  assert.equal(statSync(dir).mode & 0o777, 0o700, "the directory is its owner's alone");
  for (const f of kept) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600);
});

test("the CLI's directory: HIWAR_SANDBOX_RENDER_CACHE, else hiwar's cache per XDG, else ~/.cache/hiwar", () => {
  assert.equal(voicedLinesDir({ HIWAR_SANDBOX_RENDER_CACHE: '/srv/lines', XDG_CACHE_HOME: '/x' }, '/home/u'), '/srv/lines');
  assert.equal(voicedLinesDir({ HIWAR_SANDBOX_RENDER_CACHE: 'off' }, '/home/u'), undefined);
  assert.equal(voicedLinesDir({ HIWAR_CACHE: '/c', XDG_CACHE_HOME: '/x' }, '/home/u'), '/c/voiced-lines');
  assert.equal(voicedLinesDir({ XDG_CACHE_HOME: '/x' }, '/home/u'), '/x/hiwar/voiced-lines');
  assert.equal(voicedLinesDir({ XDG_CACHE_HOME: 'relative' }, '/home/u'), '/home/u/.cache/hiwar/voiced-lines', 'a relative XDG_CACHE_HOME is ignored, as the spec says');
  assert.equal(voicedLinesDir({}, '/home/u'), '/home/u/.cache/hiwar/voiced-lines');
  assert.equal(voicedLinesDir({}, ''), undefined, 'no home: memory only');
});

test('hiwar sandbox keeps its voiced lines in the user\'s cache by default, and the next start reads them back', async () => {
  const xdg = join(root, 'xdg');
  // The run's own directory (scripts/test.mjs) and HIWAR_CACHE unset: the default applies.
  const env = { HIWAR_SANDBOX_RENDER_CACHE: '', HIWAR_CACHE: '', XDG_CACHE_HOME: xdg };
  const line = { voice_id: 'ar-hijazi-female-1', text: 'هذا سطر يحفظ للتشغيل التالي' };
  const first = await runSandboxProcess([], env);
  let wav: Uint8Array;
  try {
    wav = await first.client.synthesizeWav('faseeh-v1-preview', line);
  } finally {
    await first.close();
  }
  const dir = join(xdg, 'hiwar', 'voiced-lines');
  assert.ok(readdirSync(dir).some((f) => f.endsWith('.line')), `a line in ${dir}`);
  // The next start's espeak-ng only tells its version: it can only answer from the directory.
  const next = await runSandboxProcess([], { ...env, PATH: espeakStub(root) });
  try {
    assert.deepEqual(await next.client.synthesizeWav('faseeh-v1-preview', line), wav);
  } finally {
    await next.close();
  }
});
