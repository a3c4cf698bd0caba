import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { AudioDecodeError, openAudioStream, readAudioFile } from '../../src/audio/decode.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import { ScaledClock } from '../../src/transport/clock.ts';
import { WavFileTransport } from '../../transports/local/wav-file.ts';
import { runNode } from '../helpers/processes.ts';
import { runSandbox } from '../helpers/sandbox.ts';

const dir = mkdtempSync(join(tmpdir(), 'hiwar-stream-'));
/** A real voice note: ffmpeg -c:a libopus from a recording of Arabic speech (see fixtures/README.md). */
const VOICE_NOTE = new URL('./fixtures/speech_sil_16k.opus', import.meta.url).pathname;
const ROOT = new URL('../..', import.meta.url).pathname;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
/** Memory still held after a full collection: heap plus Buffers and other array buffers. */
const retained = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

function ffmpeg(args: string[]): void {
  const r = spawnSync('ffmpeg', ['-y', '-hide_banner', '-loglevel', 'error', ...args]);
  assert.equal(r.status, 0, `ffmpeg ${args.join(' ')}: ${r.stderr}`);
}

/** ffmpeg processes this test process started that are still there (Linux /proc; the loader's esbuild is not counted). */
function children(): number[] {
  const mine: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Fields after the command's closing parenthesis: state, then the parent's pid.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${name}/comm`, 'utf8').trim() === 'ffmpeg') mine.push(Number(name));
    } catch {
      // gone between the listing and the read
    }
  }
  return mine;
}

const HOUR = 3600;
let hourMp3: string | undefined;
/** One hour of a low-bitrate 8 kHz MP3 (a tone: the decoder's work is the same as for speech). */
function longMp3(): string {
  if (hourMp3) return hourMp3;
  hourMp3 = join(dir, 'hour.mp3');
  ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=300:sample_rate=8000:duration=${HOUR}`, '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '8k', hourMp3]);
  return hourMp3;
}

after(() => assert.deepEqual(children(), [], 'no ffmpeg left running'));

test('an hour of MP3 streams frame by frame in bounded memory', async () => {
  const path = longMp3();
  const stream = await openAudioStream(path, { rate: 16000 });
  assert.equal(stream.decoder, 'ffmpeg');
  // The first frame is here while ffmpeg still has most of the hour to decode: 115 MB of PCM
  // cannot fit in the pipe and the read-ahead, so it is held back by the reader.
  assert.ok(stream.pid !== undefined && children().includes(stream.pid), 'ffmpeg still running at the first frame');
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
  assert.ok(!children().includes(closed.pid!));

  const controller = new AbortController();
  const aborted = await openAudioStream(path, { rate: 8000, signal: controller.signal });
  let n = 0;
  for await (const _ of aborted) if (++n === 100) controller.abort();
  assert.ok(n >= 100 && n < HOUR * 50, `${n} frames`);
  await aborted.close();
  assert.ok(!children().includes(aborted.pid!));

  const left = await openAudioStream(path, { rate: 16000 });
  for await (const _ of left) break;
  assert.ok(!children().includes(left.pid!));

  // The file transport: the agent hanging up (or close) stops its decoder too.
  const t = await WavFileTransport.open(path, { clock: new ScaledClock(50), tailMs: 0 });
  assert.equal(children().length, 1, 'the transport decodes as it plays');
  await t.close();
  assert.deepEqual(children(), []);
});

test('an Ogg/Opus voice note decodes through the demuxer and @discordjs/opus, as ffmpeg hears it', async () => {
  const opus = await openAudioStream(VOICE_NOTE, { rate: 16000 });
  assert.equal(opus.decoder, 'opus');
  assert.equal(opus.pid, undefined);
  const viaFfmpeg = await openAudioStream(VOICE_NOTE, { rate: 16000, opus: 'ffmpeg' });
  assert.equal(viaFfmpeg.decoder, 'ffmpeg');
  const [a, b] = await Promise.all([collect(opus), collect(viaFfmpeg)]);
  // 6.4 s of recording; the two decoders agree on length within a packet.
  assert.ok(Math.abs(a.length - 6.4 * 16000) < 400, `${a.length} samples`);
  assert.ok(Math.abs(a.length - b.length) < 320, `${a.length} vs ${b.length}`);
  // Speech where the recording has it ([1.000, 1.417] s), silence before it, in both.
  for (const s of [a, b]) {
    const rms = (from: number, to: number) => Math.sqrt(s.subarray(from * 16000, to * 16000).reduce((n, v) => n + v * v, 0) / ((to - from) * 16000));
    assert.ok(rms(1.05, 1.35) > 10 * rms(0.2, 0.8), `speech ${rms(1.05, 1.35)} vs silence ${rms(0.2, 0.8)}`);
  }
  // Sample by sample they are the same signal (pre-skip dropped in both): high correlation.
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  assert.ok(ab / Math.sqrt(aa * bb) > 0.9, `correlation ${ab / Math.sqrt(aa * bb)}`);
  // At a rate libopus does not decode to, the voice note is decoded at 48 kHz and resampled.
  const odd = await collect(await openAudioStream(VOICE_NOTE, { rate: 22050 }));
  assert.ok(Math.abs(odd.length - 6.4 * 22050) < 600, `${odd.length} samples at 22.05 kHz`);
});

test('without ffmpeg on the PATH a voice note still decodes, and an MP3 says to install ffmpeg', async () => {
  const mp3 = join(dir, 'short.mp3');
  ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=300:sample_rate=8000:duration=1', '-c:a', 'libmp3lame', mp3]);
  const script = join(dir, 'no-ffmpeg.mts');
  writeFileSync(
    script,
    `import { readAudioFile } from ${JSON.stringify(join(ROOT, 'src/audio/decode.ts'))};
const note = await readAudioFile(${JSON.stringify(VOICE_NOTE)}, 16000);
console.log('opus samples', note.samples.length);
await readAudioFile(${JSON.stringify(mp3)}, 16000).catch((e) => console.log(e.name + ': ' + e.message));
`,
  );
  const out = await runNode(['--import', 'tsx', script], { PATH: '/nonexistent' });
  assert.equal(out.code, 0, out.stderr);
  const samples = Number(/opus samples (\d+)/.exec(out.stdout)?.[1]);
  assert.ok(Math.abs(samples - 6.4 * 16000) < 400, out.stdout);
  assert.ok(out.stdout.includes(`AudioDecodeError: ${mp3}: ffmpeg is not installed (install ffmpeg: apt install ffmpeg`), out.stdout);
});

test('a corrupt file fails when it is opened, naming the file and the decoder\'s reason', async () => {
  const mp3 = join(dir, 'broken.mp3');
  writeFileSync(mp3, Buffer.alloc(4096, 0x5a));
  await assert.rejects(openAudioStream(mp3, { rate: 16000 }), (e: Error) => {
    assert.ok(e instanceof AudioDecodeError);
    assert.match(e.message, /^\/.*broken\.mp3: not a readable audio file \(ffmpeg: .+\)$/);
    assert.doesNotMatch(e.message, /file:/); // ffmpeg's name for the input is not repeated
    return true;
  });
  // An Ogg page header and then garbage: prism's demuxer refuses it.
  const ogg = join(dir, 'broken.opus');
  const real = readFileSync(VOICE_NOTE);
  writeFileSync(ogg, Buffer.concat([real.subarray(0, 200), Buffer.alloc(4096, 0x33)]));
  await assert.rejects(readAudioFile(ogg, 16000), /broken\.opus: not a readable audio file \(.+\)/);
  assert.deepEqual(children(), []);
});

test('a 44.1 kHz stereo 24-bit WAV streams in-process to 16 kHz mono with its length kept', async () => {
  const rate = 44100;
  const seconds = 3;
  const stereo = new Int16Array(rate * seconds * 2);
  for (let i = 0; i < rate * seconds; i++) stereo[2 * i] = stereo[2 * i + 1] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate));
  const wav16 = join(dir, 'stereo.wav');
  writeFileSync(wav16, encodeWav(stereo, rate, 2));
  const wav24 = join(dir, 'stereo24.wav');
  ffmpeg(['-i', wav16, '-c:a', 'pcm_s24le', wav24]);
  const stream = await openAudioStream(wav24, { rate: 16000, frameMs: 10 });
  assert.equal(stream.decoder, 'wav');
  assert.equal(stream.pid, undefined);
  const s = await collect(stream);
  assert.equal(s.length, 16000 * seconds);
  const rms = Math.sqrt(s.subarray(8000, 40000).reduce((n, v) => n + v * v, 0) / 32000);
  assert.ok(Math.abs(rms - 8000 / Math.SQRT2) < 300, `rms ${rms}`);
  // maxSeconds stops reading there.
  const cut = await collect(await openAudioStream(wav24, { rate: 8000, maxSeconds: 1 }));
  assert.equal(cut.length, 8000);
});

test('an MP3 streams into /listen as it is decoded, and the service hears all of it', async () => {
  // A minute of real speech: the voice note ten times over, as MP3.
  const mp3 = join(dir, 'minute.mp3');
  ffmpeg(['-stream_loop', '9', '-i', VOICE_NOTE, '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '32k', mp3]);
  const sb = await runSandbox();
  try {
    const sock = await sb.client.openListen({ sample_rate: 16000 });
    let speech = 0;
    sock.events$.subscribe((e) => e.type === 'SpeechStarted' && speech++);
    const audio = await openAudioStream(mp3, { rate: 16000 });
    let frames = 0;
    for await (const frame of audio) {
      sock.sendAudio(frame);
      // Let the socket write what it has: the file is read no faster than it goes out.
      if (++frames % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    sock.sendAudio(new Int16Array(16000));
    const closing = await sock.finish();
    assert.ok(Math.abs((closing?.audio_seconds_billed ?? 0) - 65) < 1.5, `billed ${closing?.audio_seconds_billed} s`);
    // Three words in each of the ten copies: the service heard speech start again and again.
    assert.ok(speech >= 10, `${speech} SpeechStarted`);
    assert.ok(audio.maxBufferedBytes <= 3 * 64 * 1024);
  } finally {
    await sb.close();
  }
});

async function collect(stream: AsyncIterable<Int16Array>): Promise<Int16Array> {
  const parts: Int16Array[] = [];
  for await (const f of stream) parts.push(f);
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
