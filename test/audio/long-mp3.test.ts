import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openAudioStream } from '../../src/audio/decode.ts';
import { ScaledClock } from '../../src/transport/clock.ts';
import { WavFileTransport } from '../../transports/local/wav-file.ts';
import { ffmpeg, ffmpegChildren } from '../helpers/audio-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'hiwar-hour-'));

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
/** Memory still held after a full collection: heap plus Buffers and other array buffers. */
const retained = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

const HOUR = 3600;
let hourMp3: string | undefined;
/** One hour of a low-bitrate 8 kHz MP3 (a tone: the decoder's work is the same as for speech). */
function longMp3(): string {
  if (hourMp3) return hourMp3;
  hourMp3 = join(dir, 'hour.mp3');
  ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=300:sample_rate=8000:duration=${HOUR}`, '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '8k', hourMp3]);
  return hourMp3;
}

after(() => assert.deepEqual(ffmpegChildren(), [], 'no ffmpeg left running'));

test('an hour of MP3 streams frame by frame in bounded memory', async () => {
  const path = longMp3();
  const stream = await openAudioStream(path, { rate: 16000 });
  assert.equal(stream.decoder, 'ffmpeg');
  // The first frame is here while ffmpeg still has most of the hour to decode: 115 MB of PCM
  // cannot fit in the pipe and the read-ahead, so it is held back by the reader.
  assert.ok(stream.pid !== undefined && ffmpegChildren().includes(stream.pid), 'ffmpeg still running at the first frame');
  let frames = 0;
  let early = 0;
  let late = 0;
  for await (const frame of stream) {
    frames++;
    assert.ok(frame.length <= 320);
    if (frames === 5 * 60 * 50) early = retained(); // after 5 minutes
    if (frames === 55 * 60 * 50) late = retained(); // after 55
  }
  assert.ok(Math.abs(stream.samples / 16000 - HOUR) < 1, `${stream.samples / 16000} s decoded`);
  assert.ok(frames >= HOUR * 50);
  // 50 more minutes (92 MB of PCM) went through; what is held did not grow with them.
  assert.ok(late - early < 8 * 2 ** 20, `retained memory grew by ${((late - early) / 2 ** 20).toFixed(1)} MB`);
  // Never more than about two read-ahead buffers of decoded audio waiting (64 KiB each).
  assert.ok(stream.maxBufferedBytes <= 3 * 64 * 1024, `${stream.maxBufferedBytes} bytes buffered`);
});

test('closing, aborting or leaving the loop stops ffmpeg: no process left behind', async () => {
  const path = longMp3();
  const closed = await openAudioStream(path, { rate: 16000 });
  await closed.close();
  assert.ok(!ffmpegChildren().includes(closed.pid!));

  const controller = new AbortController();
  const aborted = await openAudioStream(path, { rate: 8000, signal: controller.signal });
  let n = 0;
  for await (const _ of aborted) if (++n === 100) controller.abort();
  assert.ok(n >= 100 && n < HOUR * 50, `${n} frames`);
  await aborted.close();
  assert.ok(!ffmpegChildren().includes(aborted.pid!));

  const left = await openAudioStream(path, { rate: 16000 });
  for await (const _ of left) break;
  assert.ok(!ffmpegChildren().includes(left.pid!));

  // The file transport: the agent hanging up (or close) stops its decoder too.
  const t = await WavFileTransport.open(path, { clock: new ScaledClock(50), tailMs: 0 });
  assert.equal(ffmpegChildren().length, 1, 'the transport decodes as it plays');
  await t.close();
  assert.deepEqual(ffmpegChildren(), []);
});
