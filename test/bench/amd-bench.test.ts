/**
 * `npm run bench -- amd --quick` on the labelled set built from the real recordings: its last line
 * is the JSON the issue names, and the detector still meets its targets on that set (every third
 * recording: people, voicemail greetings, carrier announcements, line noise, 8 kHz mu-law). The
 * decisions are timed on each recording's own timeline, never the wall clock, so the figures do not
 * move with the machine's load.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { recordingsDir } from '../helpers/recordings.ts';
import { execOk } from '../helpers/processes.ts';
import { benchRunArgs } from '../helpers/bench.ts';

const AUDIO = recordingsDir();
const absent = AUDIO !== undefined && existsSync(join(AUDIO, 'ar-speech-commands')) ? false : 'no real recordings (set HIWAR_AUDIO_DIR)';

test('npm run bench -- amd --quick: the JSON line, ≥ 95 % right in every class, a person decided in ≤ 2.5 s (median)', { skip: absent }, async () => {
  // The set is built once into this cache (espeak, mixing) and reused by later runs on the machine.
  const env = { ...process.env, HIWAR_AUDIO_DIR: AUDIO, HIWAR_CACHE: process.env.HIWAR_CACHE ?? join(tmpdir(), 'hiwar-test-cache') };
  const { stdout } = await execOk(process.execPath, benchRunArgs('amd', '--quick'), { env, timeoutMs: 600_000 });
  const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    bench: string;
    accuracy: number;
    medianDecisionMs: number;
    recordings: number;
    humanMedianDecisionMs: number;
    perClass: Record<string, { n: number; right: number; accuracy: number; medianDecisionMs: number }>;
  };
  assert.equal(last.bench, 'amd');
  assert.equal(typeof last.medianDecisionMs, 'number');
  assert.deepEqual(Object.keys(last.perClass).sort(), ['human', 'machine-unavailable', 'machine-voicemail']);
  assert.equal(Object.values(last.perClass).reduce((n, c) => n + c.n, 0), last.recordings, 'every recording in one class');
  assert.ok(last.recordings >= 15, `the quick set is every third of at least 45 recordings: ${last.recordings}`);
  for (const [cls, c] of Object.entries(last.perClass)) assert.ok(c.accuracy >= 95, `${cls}: ${c.right}/${c.n} right`);
  assert.ok(last.accuracy >= 95, `all: ${last.accuracy} %`);
  assert.ok(last.humanMedianDecisionMs <= 2500, `a person decided in a median ${last.humanMedianDecisionMs} ms`);
  assert.equal(last.perClass.human!.medianDecisionMs, last.humanMedianDecisionMs);
});
