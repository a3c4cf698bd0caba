/**
 * Upload bombs against a sandbox in its own process, with a ceiling on that process's peak
 * memory (VmHWM): a 2 MB FLAC of three hours of silence (decoded whole that is 350 MB of PCM, copied three times), and a body streamed past the size limit
 * without a length. Before the fix the FLAC alone took the sandbox from ~130 MB to 2.2 GB.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

/** Growth of the sandbox's peak resident memory allowed over the whole file. */
const CEILING_MB = 400;

let child: ChildProcess;
let base = '';
let key = '';
let dir = '';
let flac: Buffer;
let startPeakMb = 0;

const peakMb = (): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hiwar-bomb-'));
  const path = join(dir, 'three-hours.flac');
  execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '10800', '-c:a', 'flac', path]);
  flac = readFileSync(path);
  child = spawn(process.execPath, ['bin/hiwar.js', 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /serving (\S+)/.exec(out)?.[1];
      const k = /API key: (\S+)/.exec(out)?.[1];
      if (url && k) {
        base = url;
        key = k;
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited (${code}): ${out}`)));
  });
  // Warm up what every request loads, so the ceiling measures the uploads only.
  await fetch(`${base}/models`, { headers: { 'x-api-key': key } });
  startPeakMb = peakMb();
});

after(async () => {
  // A clean exit on SIGTERM also shows that no upload left a timer or a handle behind.
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  rmSync(dir, { recursive: true, force: true });
});

async function upload(path: string, field: string, file: Buffer, name: string): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append(field, new Blob([file]), name);
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  return { status: res.status, body: await res.json() };
}

test('a 2 MB FLAC of three hours of silence is refused at the duration limit, within the memory ceiling', async () => {
  assert.ok(flac.length < 3 * 1024 * 1024, `${flac.length} bytes`);
  const transcribe = await upload('/audio/transcribe', 'file', flac, 'silence.flac');
  assert.equal(transcribe.status, 400);
  assert.match(transcribe.body.errorMessage, /60 minutes/);
  const denoise = await upload('/denoise', 'audio', flac, 'silence.flac');
  assert.equal(denoise.status, 400);
  assert.match(denoise.body.errorMessage, /15 minutes/);
  const grew = peakMb() - startPeakMb;
  assert.ok(grew < CEILING_MB, `sandbox peak memory grew ${grew.toFixed(0)} MB (ceiling ${CEILING_MB} MB)`);
  process.stderr.write(`upload bomb: sandbox peak memory ${startPeakMb.toFixed(0)} MB → ${peakMb().toFixed(0)} MB\n`);
});

test('a body streamed past the size limit without a length is cut off while reading', async () => {
  const chunk = new Uint8Array(1024 * 1024);
  let sent = 0;
  const head = Buffer.from('--zz\r\ncontent-disposition: form-data; name="audio"; filename="a.wav"\r\ncontent-type: audio/wav\r\n\r\n');
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(head);
    },
    pull(c) {
      // 400 MB offered; the sandbox must stop reading after its 200 MB limit.
      if (sent >= 400) return c.close();
      sent++;
      c.enqueue(chunk);
    },
  });
  const res = await fetch(`${base}/denoise`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'multipart/form-data; boundary=zz' },
    body,
    duplex: 'half',
  } as RequestInit).catch((e: Error) => e);
  if (res instanceof Error) {
    // The server may close the connection before fetch has read the answer: still refused.
    assert.ok(sent < 400, `the whole body was read (${sent} MB)`);
  } else {
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { errorMessage: string }).errorMessage, /200 MB/);
  }
  const grew = peakMb() - startPeakMb;
  assert.ok(grew < CEILING_MB, `sandbox peak memory grew ${grew.toFixed(0)} MB (ceiling ${CEILING_MB} MB)`);
  const models = await fetch(`${base}/models`, { headers: { 'x-api-key': key } });
  assert.equal(models.status, 200);
});
