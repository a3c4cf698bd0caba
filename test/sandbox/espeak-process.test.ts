/**
 * espeak-ng started by the sandbox's small shell (src/sandbox/engines/espeak-process.ts) gives
 * the very audio a direct start gives, many at once; a missing espeak-ng is said as before; and
 * the shell keeps no process alive once its work is done.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { runNode } from '../helpers/processes.ts';
import { runEspeakProcess } from '../../src/sandbox/engines/espeak-process.ts';

const direct = async (args: string[]) => (await promisify(execFile)('espeak-ng', args, { encoding: 'buffer', maxBuffer: 1 << 24 })).stdout;
const argsOf = (word: string, pitch = 50) => ['-v', 'ar', '-p', String(pitch), '-s', '150', '--stdout', '--', word];

test('through the shell: the same bytes as espeak-ng started directly, eight at once, quotes and all', async () => {
  const words = ['نعم', 'لا', 'موافق', 'خمسة', "it's", 'صفر', '"$HOME"', 'واحد'];
  const runs = await Promise.all(words.map((w, i) => runEspeakProcess(argsOf(w, 40 + i))));
  for (const [i, run] of runs.entries()) {
    assert.equal(run.code, 0, run.err);
    assert.equal(run.missing, undefined);
    assert.equal(run.out.subarray(0, 4).toString(), 'RIFF');
    assert.ok(run.out.equals(await direct(argsOf(words[i]!, 40 + i))), `${words[i]}: not the direct run's audio`);
  }
  // A run espeak-ng fails: its exit code and its own message come back.
  const bad = await runEspeakProcess(['-f', '/nonexistent/text', '--stdout']);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /\/nonexistent\/text/);
});

test('without espeak-ng on the PATH the run says it is missing; with nothing left to voice the process exits by itself', async () => {
  const script = `
    const { runEspeakProcess } = await import(${JSON.stringify(new URL('../../src/sandbox/engines/espeak-process.ts', import.meta.url).href)});
    const ok = await runEspeakProcess(['-v', 'ar', '--stdout', '--', 'نعم']);
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    const missing = await runEspeakProcess(['-v', 'ar', '--stdout', '--', 'نعم']);
    process.env.PATH = path;
    console.log(JSON.stringify({ ok: ok.code, bytes: ok.out.length, missing: missing.missing === true }));
  `;
  // The child must end on its own: a shell holding its event loop would keep it until the deadline.
  const child = await runNode(['--import', 'tsx', '--input-type=module', '-e', script], {}, 60_000);
  assert.equal(child.code, 0, child.stderr);
  assert.deepEqual({ ...JSON.parse(child.stdout.trim().split('\n').pop()!), bytes: undefined }, { ok: 0, bytes: undefined, missing: true });
});
