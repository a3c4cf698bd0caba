/**
 * scripts/heartbeat.sh, which scripts/setup.sh runs npm ci through: while the command runs, a
 * "still running" line on stderr every HIWAR_SETUP_BEAT_S seconds; its exit status is the
 * command's, and it returns as soon as the command ends. The command here waits for a file the
 * test writes once it has seen a heartbeat, so nothing depends on how fast the machine is.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/heartbeat.sh', import.meta.url));

/** Runs `with_heartbeat LABEL COMMAND…` in bash; `onErr` sees stderr as it comes. */
function withHeartbeat(args: string[], onErr: (all: string) => void = () => {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -euo pipefail; . "$0"; with_heartbeat "$@"; echo "returned $?"`, SCRIPT, ...args], { env: { ...process.env, HIWAR_SETUP_BEAT_S: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => onErr((stderr += c)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a line while the command runs, named and timed; then the command status, at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-heartbeat-'));
  const done = join(dir, 'done');
  try {
    const r = await withHeartbeat(['npm ci', 'bash', '-c', `until [ -e "${done}" ]; do sleep 0.1; done; exit 0`], (err) => {
      if (err.includes('still running')) writeFileSync(done, '');
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'returned 0\n');
    assert.match(r.stderr, /^setup: npm ci still running \(\d+ s\)…$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a failing command's status is the script's, under set -e as setup.sh runs it", async () => {
  const r = await withHeartbeat(['npm ci', 'bash', '-c', 'exit 3']);
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.stdout, '', 'set -e stopped the script at the failure');
});
