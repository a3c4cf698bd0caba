import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { encodeWav } from '../../src/audio/wav.ts';
import { nameFor, namedUpload } from '../../src/service/rest/upload-name.ts';

/** A tenth of a second of silence in a real container, made by ffmpeg. */
const encoded = (format: string, codec?: string, extra: string[] = []) =>
  new Uint8Array(
    spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '0.1', ...(codec ? ['-c:a', codec] : []), ...extra, '-f', format, '-'], { maxBuffer: 1 << 24 }).stdout,
  );

test('the name follows the content: WAV, MP3, OGG, MP4, FLAC, WebM', async () => {
  const cases: [Uint8Array, string][] = [
    [encodeWav(new Int16Array(160), 16000), 'wav'],
    [encoded('mp3'), 'mp3'],
    [encoded('ogg', 'libopus'), 'ogg'],
    [encoded('mp4', 'aac', ['-movflags', 'frag_keyframe+empty_moov']), 'mp4'],
    [encoded('flac'), 'flac'],
    [encoded('webm', 'libopus'), 'webm'],
  ];
  for (const [bytes, ext] of cases) {
    assert.ok(bytes.length > 0, `ffmpeg made ${ext}`);
    assert.equal((await namedUpload(new Blob([bytes as Uint8Array<ArrayBuffer>]))).filename, `audio.${ext}`, ext);
    assert.equal((await namedUpload({ data: bytes, filename: 'call' })).filename, `call.${ext}`, ext);
    assert.equal((await namedUpload({ data: bytes, filename: 'call.bin' })).filename, `call.${ext}`, ext);
  }
});

test('a name that already agrees is kept; unknown content keeps its name; a content type helps', async () => {
  assert.equal(nameFor('voice.m4a', 'mp4'), 'voice.m4a');
  assert.equal(nameFor('voice.opus', 'ogg'), 'voice.opus');
  assert.equal(nameFor('voice.wav', 'mp3'), 'voice.mp3');
  assert.equal(nameFor('my.recording.2024', 'wav'), 'my.recording.2024.wav');
  assert.equal(nameFor('notes.xyz', undefined), 'notes.xyz');
  const unknown = new Uint8Array(64).fill(7);
  assert.equal((await namedUpload({ data: unknown, filename: 'x.raw' })).filename, 'x.raw');
  assert.equal((await namedUpload(new Blob([unknown], { type: 'audio/mpeg' }))).filename, 'audio.mp3');
});
