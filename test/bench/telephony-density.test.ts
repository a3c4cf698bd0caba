/**
 * The density bench's telephony row: hiwar serve's server in the bench process, Twilio Media
 * Streams from a caller process. Two calls for one short level; shapes only, never timings.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

test('npm run bench -- density transport=twilio: calls over the real protocol, answered, counted', async () => {
  const run = fileURLToPath(new URL('../../bench/run.ts', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', run, 'density', '--quick', '2', 'transport=twilio'], { timeout: 90_000 });
  const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;
  assert.equal(last.bench, 'density');
  assert.equal(last.transport, 'twilio');
  const [level] = last.levels;
  assert.equal(level.calls, 2);
  // 8 s of 20 ms frames from two callers reached the sessions (a few may still be in flight).
  assert.ok(level.callerFrames > 600, `caller frames ${level.callerFrames}`);
  assert.ok(level.agentFrames > 0, 'the agent spoke over the media stream');
  assert.ok(level.answeredTurns >= 2, `answered turns ${level.answeredTurns}`);
  assert.match(stdout, /hiwar serve \+ Twilio Media Streams/);
});
