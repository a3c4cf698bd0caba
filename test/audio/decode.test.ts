import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AudioDecodeError, readAudioFile } from '../../src/audio/decode.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import { ScaledClock } from '../../src/transport/clock.ts';
import { WavFileTransport } from '../../transports/local/wav-file.ts';
import { firstValueFrom, toArray } from '../helpers/rx.ts';

const dir = mkdtempSync(join(tmpdir(), 'hiwar-decode-'));
// One second: a 440 Hz tone for 0.5 s, then silence; at 44.1 kHz stereo (the right channel quieter).
const RATE = 44100;
const tone = (i: number) => (i < RATE / 2 ? Math.sin((2 * Math.PI * 440 * i) / RATE) : 0);
const stereo = new Int16Array(RATE * 2);
for (let i = 0; i < RATE; i++) {
  stereo[2 * i] = Math.round(12000 * tone(i));
  stereo[2 * i + 1] = Math.round(6000 * tone(i));
}
const source = join(dir, 'source.wav');
writeFileSync(source, encodeWav(stereo, RATE, 2));

function convert(ext: string, args: string[] = []): string {
  const out = join(dir, `tone.${ext}`);
  const r = spawnSync('ffmpeg', ['-y', '-loglevel', 'error', '-i', source, ...args, out]);
  assert.equal(r.status, 0, `ffmpeg ${ext}: ${r.stderr}`);
  return out;
}

/** Energy in the first and second half: the tone must be in the first, silence in the second. */
function halves(s: Int16Array): [number, number] {
  const e = (a: Int16Array) => Math.sqrt(a.reduce((n, v) => n + v * v, 0) / a.length);
  return [e(s.subarray(800, 7200)), e(s.subarray(8800, 15200))];
}

const formats: [string, string[]][] = [
  ['wav', []], // 44.1 kHz stereo PCM, read in-process
  ['mp3', ['-b:a', '96k']],
  ['ogg', ['-c:a', 'libvorbis']],
  ['opus', ['-c:a', 'libopus']],
  ['m4a', ['-c:a', 'aac']],
  ['flac', []],
];

for (const [ext, args] of formats) {
  test(`a 44.1 kHz stereo ${ext.toUpperCase()} becomes 16 kHz mono with its timing kept`, async () => {
    const path = ext === 'wav' ? source : convert(ext, args);
    const { samples, sampleRate } = await readAudioFile(path, 16000);
    assert.equal(sampleRate, 16000);
    // Encoders add a little padding; the length stays within 60 ms of one second.
    assert.ok(Math.abs(samples.length - 16000) < 1000, `${samples.length} samples`);
    const [on, off] = halves(samples);
    // Channels averaged: (12000 + 6000) / 2 peak → about 6360 rms.
    assert.ok(on > 5000 && on < 7500, `tone rms ${on}`);
    assert.ok(off < 200, `silence rms ${off}`);
  });
}

test('a compressed WAV codec wavefile cannot read (IMA ADPCM) goes through ffmpeg', async () => {
  const path = convert('wav', ['-c:a', 'adpcm_ima_wav']); // wavefile throws "Invalid bit depth" on it
  const { samples } = await readAudioFile(path, 8000);
  assert.ok(Math.abs(samples.length - 8000) < 500);
});

test('unreadable input is one clear error naming the file', async () => {
  const junk = join(dir, 'notes.txt');
  writeFileSync(junk, 'these are not the samples you are looking for');
  await assert.rejects(readAudioFile(junk, 16000), (e: Error) => e instanceof AudioDecodeError && /notes\.txt: not a readable audio file/.test(e.message));
  await assert.rejects(readAudioFile(join(dir, 'missing.mp3'), 16000), /missing\.mp3: no such file/);
});

test('the WAV-file transport takes an MP3 and plays it at the call rate', async () => {
  const t = await WavFileTransport.open(convert('mp3', ['-b:a', '96k']), { clock: new ScaledClock(50), rate: 8000, tailMs: 200 });
  const frames = await firstValueFrom(t.audio$.pipe(toArray()));
  assert.ok(frames.every((f) => f.sampleRate === 8000 && f.samples.length === 160));
  const total = frames.length * 0.02;
  assert.ok(total > 1.1 && total < 1.4, `${total} s`);
  await t.output.close();
});
