import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { mapLimit, SIDE_BY_SIDE } from '../helpers/parallel.ts';
import { runNode } from '../helpers/processes.ts';
import { readAudioFile } from '../../src/audio/decode.ts';
import { concatPcm, silence } from '../../src/audio/pcm.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import { runSandbox, voiced } from '../helpers/sandbox.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** Runs an example as the README does (`npx tsx examples/…`), from the repository root. */
const example = (args: string[], env: Record<string, string> = {}) => runNode(['--import', 'tsx', ...args], env, 90_000);

const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at |node:internal/, 'no stack trace');

test('examples check their argument before starting anything and fail in one line', async () => {
  // Side by side (two at a time): each is a fresh process, and its start-up is most of its time.
  const names = ['listen-wav', 'transcribe-file', 'denoise'];
  const argv = [...names.flatMap((ex) => [[`examples/${ex}.ts`], [`examples/${ex}.ts`, 'call.wav']]), ['examples/listen-wav.ts', 'README.md']];
  const runs = await mapLimit(argv, SIDE_BY_SIDE, (args) => example(args));
  const junk = runs.at(-1)!;
  for (const [i, ex] of names.entries()) {
    const [none, missing] = [runs[2 * i]!, runs[2 * i + 1]!];
    assert.equal(none.code, 2, ex);
    assert.match(none.stderr, new RegExp(`^usage: npx tsx examples/${ex}\\.ts FILE`));
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `${ex}.ts: call.wav: no such file\n`, 'no sandbox started, one line');
    noStack(missing.stderr);
  }
  assert.equal(junk.code, 1);
  assert.match(junk.stderr, /^listen-wav\.ts: README\.md: not a readable audio file \(ffmpeg: [^\n]+\)\n$/);
});

test('a wrong key is one line that names the fix', async () => {
  // A local sandbox that does not know the key stands in for the service.
  const sandbox = spawn(process.execPath, ['bin/hiwar.js', 'sandbox', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      sandbox.stdout.on('data', (c) => {
        out += c;
        const m = /serving (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      sandbox.once('close', () => reject(new Error(`sandbox exited: ${out}`)));
    });
    const r = await example(['examples/tts-to-wav.ts', join(mkdtempSync(join(tmpdir(), 'hiwar-ex-')), 'x.wav')], { HIWAR_API_KEY: 'sk-not-a-real-key-123', HIWAR_BASE_URL: url });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^tts-to-wav\.ts: the service refused the key \(401[^\n]*\): check HIWAR_API_KEY \(asked in the global region: a key issued in the UAE region needs HIWAR_REGION=uae\), or unset it to use the local sandbox\n$/);
    assert.doesNotMatch(r.stderr, /sk-not-a-real-key/, 'the key is never printed');
  } finally {
    sandbox.kill('SIGINT');
  }
});

test('listen-wav takes a 44.1 kHz stereo OGG and shows the sandbox warning for speech it cannot know', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-ex-'));
  // A line voiced by another sandbox: the example's own fresh sandbox has never heard it.
  const other = await runSandbox();
  const unknown = await voiced(other.client, 'الطقس جميل جدا هذا الصباح').finally(() => other.close());
  const { samples: greeting } = await readAudioFile(join(ROOT, 'examples/audio/greeting.wav'), 16000);
  const both = concatPcm([greeting, unknown, silence(1, 16000)]);
  const stereo = new Int16Array(both.length * 2).map((_, i) => both[i >> 1]!);
  writeFileSync(join(dir, 'both.wav'), encodeWav(stereo, 16000, 2));
  const ogg = join(dir, 'both.ogg');
  const r = spawnSync('ffmpeg', ['-y', '-loglevel', 'error', '-i', join(dir, 'both.wav'), '-ar', '44100', '-c:a', 'libvorbis', ogg]);
  assert.equal(r.status, 0, String(r.stderr));
  const out = await example(['examples/listen-wav.ts', ogg]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /final\s+مرحبا بكم في خدمة العملاء كيف أستطيع مساعدتك اليوم/);
  assert.match(out.stdout, /warning: speech not recognized: the sandbox recognizes only phrases it has voiced or was given in its phrasebook\nfinal\s+\(nothing recognized\)/);
  assert.match(out.stdout, /billed [\d.]+ s over 2 turn/);
  rmSync(dir, { recursive: true, force: true });
});

test('tts-to-wav writes under out/ and denoise saves its result under out/', async () => {
  const [tts, dn] = await Promise.all([example(['examples/tts-to-wav.ts']), example(['examples/denoise.ts', 'examples/audio/noisy.wav'])]);
  assert.equal(tts.code, 0, tts.stderr);
  assert.match(tts.stdout, /^out\/tts\.wav: [\d.]+ s at 16000 Hz/);
  assert.ok(existsSync(join(ROOT, 'out/tts.wav')));
  assert.equal(dn.code, 0, dn.stderr);
  assert.match(dn.stdout, /done: out\/noisy-denoised\.wav/);
  assert.ok(existsSync(join(ROOT, 'out/noisy-denoised.wav')));
});
