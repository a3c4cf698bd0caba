/**
 * An espeak-ng run that exits 0 without a readable WAV (seen once in a busy suite run) is voiced
 * once more; one that keeps doing so is a clear error naming what came back. The child process
 * finds a stand-in espeak-ng first on its PATH that answers with nothing for its first N runs and
 * then runs the real one.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';

const dir = mkdtempSync(join(tmpdir(), 'hiwar-espeak-retry-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Voices one word in a child whose espeak-ng gives no output for its first `emptyRuns` runs. */
async function voiceWithFlakyEspeak(emptyRuns: number): Promise<{ ok: boolean; samples?: number; error?: string; runs: number }> {
  const bin = mkdtempSync(join(dir, 'bin-'));
  const count = join(bin, 'runs');
  writeFileSync(count, '');
  const fake = join(bin, 'espeak-ng');
  writeFileSync(
    fake,
    `#!/bin/sh\necho x >> ${JSON.stringify(count)}\nif [ "$(wc -l < ${JSON.stringify(count)})" -le ${emptyRuns} ]; then exit 0; fi\nexec /usr/bin/espeak-ng "$@"\n`,
  );
  chmodSync(fake, 0o755);
  const script = `
    const { voiceText } = await import(${JSON.stringify(new URL('../../src/sandbox/engines/espeak.ts', import.meta.url).href)});
    try {
      const v = await voiceText('مرحبا', { name: 'ar', pitch: 50, wpm: 150 });
      console.log(JSON.stringify({ ok: true, samples: v.samples.length }));
    } catch (err) {
      console.log(JSON.stringify({ ok: false, error: err.message }));
    }
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  });
  const runs = readFileSync(count, 'utf8').split('\n').filter(Boolean).length;
  return { ...JSON.parse(stdout), runs };
}

test('a voicing with no readable audio is tried once more, and the second run is used', async () => {
  const r = await voiceWithFlakyEspeak(1);
  assert.equal(r.ok, true, r.error);
  assert.ok(r.samples! > 1000, `voiced audio (${r.samples} samples)`);
  assert.equal(r.runs, 2);
});

test('two such runs in a row are an error that says what came back', async () => {
  const r = await voiceWithFlakyEspeak(2);
  assert.equal(r.ok, false);
  assert.match(r.error!, /espeak-ng gave no readable audio \(0 bytes\)/);
  assert.equal(r.runs, 2);
});
