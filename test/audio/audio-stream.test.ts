import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AudioDecodeError, openAudioStream, readAudioFile } from '../../src/audio/decode.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import { ffmpeg, ffmpegChildren } from '../helpers/audio-files.ts';
import { runNode } from '../helpers/processes.ts';
import { runSandboxProcess } from '../helpers/sandbox-process.ts';
import { concatPcm } from '../../src/audio/pcm.ts';

const dir = mkdtempSync(join(tmpdir(), 'hiwar-stream-'));
/** A real voice note: ffmpeg -c:a libopus from a recording of Arabic speech (see fixtures/README.md). */
const VOICE_NOTE = new URL('./fixtures/speech_sil_16k.opus', import.meta.url).pathname;
const ROOT = new URL('../..', import.meta.url).pathname;
const NO_OPUS = new URL('../helpers/no-opus.cjs', import.meta.url).pathname;

after(() => assert.deepEqual(ffmpegChildren(), [], 'no ffmpeg left running'));

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

test('without a working @discordjs/opus build, a voice note goes through ffmpeg instead', async () => {
  const script = join(dir, 'no-opus.mts');
  writeFileSync(
    script,
    `import { openAudioStream } from ${JSON.stringify(join(ROOT, 'src/audio/decode.ts'))};
const s = await openAudioStream(${JSON.stringify(VOICE_NOTE)}, { rate: 16000 });
let n = 0;
for await (const f of s) n += f.length;
console.log(s.decoder, n);
`,
  );
  const out = await runNode(['--require', NO_OPUS, '--import', 'tsx', script]);
  assert.equal(out.code, 0, out.stderr);
  const [, decoder, samples] = /^(\w+) (\d+)$/m.exec(out.stdout) ?? [];
  assert.equal(decoder, 'ffmpeg', out.stdout);
  assert.ok(Math.abs(Number(samples) - 6.4 * 16000) < 400, out.stdout);
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
  assert.deepEqual(ffmpegChildren(), []);
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
  // The sandbox in a process of its own (as the service is on other machines), its 60 s
  // ahead-of-real-time limit lifted: the minute goes out in a few seconds. In this process, on a
  // starved machine, it fell behind the client it shares the CPU with and closed the socket for
  // 12 s without audio it had not yet read (docs/testing.md, "Starving one run").
  const sb = await runSandboxProcess(['--ahead-limit', '3600']);
  try {
    // Sent as fast as it decodes, far ahead of real time: the server's answers lag more than the
    // liveness check's 10 s of speech allows, which would end a real call as dead; and the
    // sandbox, reading a minute of audio at once on a loaded machine, can take longer than the
    // 5 s a pong is given. Liveness is not what this test is about: both off.
    const sock = await sb.client.openListen({ sample_rate: 16000, liveness: { eventTimeoutMs: 0, pingIntervalMs: 0 } });
    let speech = 0;
    let closed = '';
    sock.events$.subscribe((e) => {
      if (e.type === 'SpeechStarted') speech++;
      if (e.type === 'Closed') closed = JSON.stringify(e.close);
    });
    const audio = await openAudioStream(mp3, { rate: 16000 });
    let frames = 0;
    for await (const frame of audio) {
      sock.sendAudio(frame);
      // Let the socket write what it has: the file is read no faster than it goes out.
      if (++frames % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    sock.sendAudio(new Int16Array(16000));
    const closing = await sock.finish();
    assert.ok(Math.abs((closing?.audio_seconds_billed ?? 0) - 65) < 1.5, `billed ${closing?.audio_seconds_billed} s; ${closed}`);
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
  return concatPcm(parts);
}
