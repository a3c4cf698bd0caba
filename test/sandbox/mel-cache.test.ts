/**
 * The mel features the recognizer learns, kept beside the voiced lines
 * (src/sandbox/engines/mel-cache.ts): a kept one is what computing them gives, to the bit;
 * another process sharing the directory reads them rather than computing them; a damaged file
 * is computed anew; the directory's bound counts them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { melPower } from '../../src/sandbox/engines/features.ts';
import { learnedMelPower } from '../../src/sandbox/engines/mel-cache.ts';
import { RENDER_CACHE_DEFAULTS, renderLine } from '../../src/sandbox/engines/render-cache.ts';
import { pruneLineDir } from '../../src/sandbox/line-dir.ts';

const dir = mkdtempSync(join(tmpdir(), 'hiwar-mel-cache-test-'));
const saved = RENDER_CACHE_DEFAULTS.dir;
RENDER_CACHE_DEFAULTS.dir = dir;
after(() => {
  RENDER_CACHE_DEFAULTS.dir = saved;
  rmSync(dir, { recursive: true, force: true });
});

const melFiles = () => readdirSync(dir).filter((f) => f.endsWith('.mel'));

/** What a child process sharing the directory gets for `pcm` (its memory empty). */
async function inChild(pcm: Int16Array): Promise<{ energy: number[]; power: number[][] }> {
  const script = `
    const { learnedMelPower } = await import(${JSON.stringify(new URL('../../src/sandbox/engines/mel-cache.ts', import.meta.url).href)});
    const pcm = new Int16Array(Buffer.from(${JSON.stringify(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64'))}, 'base64').buffer.slice(0));
    const m = await learnedMelPower(pcm);
    console.log(JSON.stringify({ energy: [...m.energy], power: m.power.map((b) => [...b]) }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, HIWAR_SANDBOX_RENDER_CACHE: dir },
    maxBuffer: 64 * 2 ** 20,
  });
  return JSON.parse(stdout) as { energy: number[]; power: number[][] };
}

test('kept features are the features computed, to the bit; another process reads them from the directory; a damaged file is computed anew', async () => {
  const line = await renderLine('أريد معرفة رصيد حسابي', { name: 'ar', pitch: 40, wpm: 185 }, 1, 16000);
  const expected = melPower(line.samples);
  assert.ok(expected.power.length > 50);
  const first = await learnedMelPower(line.samples);
  const again = await learnedMelPower(line.samples);
  for (const got of [first, again]) {
    assert.deepEqual(got.energy, expected.energy);
    assert.deepEqual(got.power, expected.power);
  }
  assert.equal(melFiles().length, 1, 'one file for the line');
  // A clause of the line (a view into it) has features of its own.
  const clause = line.samples.subarray(1601, 12000);
  assert.deepEqual((await learnedMelPower(clause)).power, melPower(clause).power);
  assert.equal(melFiles().length, 2);

  // The child reads what is in the file: changed, the child's answer changes with it.
  const file = join(dir, melFiles().find((f) => readFileSync(join(dir, f)).readUInt32LE(0) === expected.energy.length)!);
  const bytes = readFileSync(file);
  const marked = Buffer.from(bytes);
  marked.writeFloatLE(-123.5, 4);
  writeFileSync(file, marked);
  const read = await inChild(line.samples);
  assert.equal(read.energy[0], -123.5, 'read from the directory, not computed');
  assert.deepEqual(read.energy.slice(1), [...expected.energy.slice(1)]);
  assert.deepEqual(read.power, expected.power.map((b) => [...b]));
  // Cut short: computed again, the same as computing it.
  writeFileSync(file, bytes.subarray(0, bytes.length - 8));
  const recomputed = await inChild(line.samples);
  assert.deepEqual(recomputed.energy, [...expected.energy]);
});

test("the directory's bound counts the features with the lines", async () => {
  const bounded = join(dir, 'bounded');
  mkdirSync(bounded);
  const now = Date.now();
  for (const [i, name] of ['a.line', 'b.mel', 'c.line', 'd.mel'].entries()) {
    writeFileSync(join(bounded, name), Buffer.alloc(1000));
    const t = new Date(now - (10 - i) * 60_000);
    utimesSync(join(bounded, name), t, t);
  }
  assert.deepEqual(await pruneLineDir(bounded, 4000, now), { removed: 0, bytes: 4000 });
  assert.equal((await pruneLineDir(bounded, 3000, now)).removed, 2);
  assert.deepEqual(readdirSync(bounded).sort(), ['c.line', 'd.mel'], 'the least recently used, a line and features, gone');
});
