/**
 * The barge-in bench over the Twilio route, run for real with a few calls: every barge-in is in
 * exactly one of the two wire figures, each figure says how many it covers, the cold round is
 * reported apart from the measured warm one, and `trace=FILE` writes one line per barge-in of
 * either round. Shapes and counts only, never timings.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { execOk } from '../helpers/processes.ts';
import { benchRunArgs } from '../helpers/bench.ts';

const dir = mkdtempSync(join(tmpdir(), 'hiwar-bargein-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('npm run bench -- bargein transport=twilio: two wire figures with their counts, and a trace line per barge-in', async () => {
  const trace = join(dir, 'trace.jsonl');
  const { stdout } = await execOk(process.execPath, benchRunArgs('bargein', '--quick', '3', 'transport=twilio', 'seconds=15', 'warmup=8', 'spread=2', `trace=${trace}`), { timeoutMs: 300_000 });
  const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;
  const t = last.twilio;
  assert.ok(t.bargeIns >= 1, 'the callers barged in');
  assert.equal(t.duringReply.n + t.afterLastByte.n, t.bargeIns, 'each barge-in in one figure');
  assert.equal(t.duringReply.speechToLastAudioOnWireMs.n, t.duringReply.n);
  assert.equal(t.afterLastByte.speechToClearMs.n, t.afterLastByte.n);
  assert.ok(t.duringReply.noAudioAfterSpeech <= t.duringReply.n);
  assert.ok(t.legacy.readZeroWithAudioAfterSpeech <= t.legacy.readZero);
  assert.match(stdout, new RegExp(`${t.duringReply.n} barge-ins while agent audio was still to be sent`));
  assert.match(stdout, new RegExp(`${t.afterLastByte.n} barge-ins after the reply's last byte had left`));
  const all = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  // Two rounds: the process's first calls (cold), then the measured round (warm), each barge-in with its round.
  assert.equal(t.process, 'warm');
  const lines = all.filter((l) => l.round === 'warm');
  assert.equal(lines.length, t.bargeIns);
  assert.equal(all.filter((l) => l.round === 'cold').length, t.cold.bargeIns);
  assert.ok(t.cold.bargeIns >= 1, 'the cold round barged in too');
  assert.equal(t.cold.duringReply.n + t.cold.afterLastByte.n, t.cold.bargeIns);
  assert.match(stdout, /in a warm process \(after a 8 s round of the same calls\), their first speech spread over 2 s/);
  assert.equal(t.spread, 2);
  // hiwar's CPU per second over each round's first seconds (all 8 of the cold round) and the rest.
  assert.ok(t.cpuMsPerS.first > 0 && t.cpuMsPerS.rest > 0 && t.cold.cpuMsPerS.first > 0);
  assert.deepEqual([t.cpuMsPerS.firstS, t.cold.cpuMsPerS.firstS, t.cold.cpuMsPerS.rest], [10, 8, null]);
  assert.ok(t.fakeCpuMsPerS > 0 && t.cold.fakeCpuMsPerS > 0, 'the fake worked in both rounds');
  // The window split at its first 10 s: every barge-in during the reply on one side.
  assert.equal(t.firstSeconds.first.n + t.firstSeconds.rest.n, t.duringReply.n);
  assert.equal(t.cold.firstSeconds.rest.n, 0, 'the 8 s cold round is all first seconds');
  assert.match(stdout, /the same in the cold round \(the process's first calls, 8 s/);
  assert.equal(lines.filter((l) => l.kind === 'during').length, t.duringReply.n);
  for (const l of lines) {
    // A barge-in during the reply read agent audio after speech start, or the server still had some to send.
    if (l.kind === 'during') assert.ok(l.mediaAfter > 0 || l.unsentMs > 0);
    else assert.equal(l.mediaAfter, 0);
    assert.ok(l.mediaBeforeFrameSent <= l.mediaAfter);
  }
});
