import assert from 'node:assert/strict';
import { test } from 'node:test';
import wavefile from 'wavefile';
import { splitRecording } from '../../src/analytics/channels.ts';
import { decodeWav, encodeWav, readPcm16Wav } from '../../src/audio/wav.ts';

/** Samples covering the whole 16-bit range, `channels` interleaved. */
const ramp = (frames: number, channels: number) => Int16Array.from({ length: frames * channels }, (_, i) => ((i * 7919) % 65536) - 32768);
/** The same audio as wavefile writes it: the reference the direct reader and writer must match. */
function reference(samples: Int16Array, rate: number, channels: number, bits = '16'): Uint8Array {
  const w = new wavefile.WaveFile();
  w.fromScratch(channels, rate, bits, bits === '16' ? samples : Float64Array.from(samples, (v) => (bits === '32f' ? v / 32768 : v * 256)));
  return w.toBuffer();
}

test('encodeWav writes the bytes wavefile writes, for every channel count and length', () => {
  for (const channels of [1, 2, 3]) {
    for (const frames of [0, 1, 7, 16000]) {
      const s = ramp(frames, channels);
      assert.deepEqual(Buffer.from(encodeWav(s, 16000, channels)), Buffer.from(reference(s, 16000, channels)), `${channels} ch, ${frames} frames`);
    }
  }
});

test('16-bit WAVs are read directly as wavefile reads them; other layouts still go through wavefile', () => {
  const stereo = ramp(4001, 2);
  const bytes = reference(stereo, 22050, 2);
  const direct = readPcm16Wav(bytes)!;
  assert.deepEqual([direct.channels, direct.sampleRate], [2, 22050]);
  assert.deepEqual(direct.samples, stereo);
  const w = new wavefile.WaveFile(bytes);
  assert.deepEqual(decodeWav(bytes).samples, Int16Array.from({ length: 4001 }, (_, i) => Math.round((stereo[2 * i]! + stereo[2 * i + 1]!) / 2)));
  assert.deepEqual(splitRecording(bytes).caller, (w.getSamples(false, Int16Array) as unknown as Int16Array[])[0]);
  // A chunk before the data (odd-sized, so padded), and a data size that overruns the file, as a
  // WAV streamed to a pipe declares it (espeak-ng's): the samples that are there.
  const mono = ramp(1000, 1);
  const plain = encodeWav(mono, 16000);
  const list = Buffer.from('LIST\x03\x00\x00\x00abc\x00', 'latin1');
  const streamed = Buffer.concat([plain.subarray(0, 36), list, plain.subarray(36)]);
  streamed.writeUInt32LE(0xffffffff, 36 + list.length + 4);
  assert.deepEqual(decodeWav(streamed).samples, mono);
  // A 40-byte format chunk (wavefile's header past two channels), and WAVE_FORMAT_EXTENSIBLE
  // with the PCM sub-format in it: read directly too.
  const three = ramp(500, 3);
  const ext = Buffer.from(encodeWav(three, 8000, 3));
  assert.equal(ext.readUInt32LE(16), 40);
  assert.deepEqual(readPcm16Wav(ext)?.samples, three);
  ext.writeUInt16LE(0xfffe, 20);
  ext.writeUInt16LE(1, 20 + 24);
  assert.deepEqual(readPcm16Wav(ext)?.samples, three);
  // Float and 24-bit are not read directly; decodeWav reads them through wavefile, at 16 bits.
  for (const bits of ['32f', '24']) {
    const other = reference(mono, 16000, 1, bits);
    assert.equal(readPcm16Wav(other), undefined, bits);
    const back = decodeWav(other).samples;
    assert.equal(back.length, mono.length);
    assert.ok(back.every((v, i) => Math.abs(v - mono[i]!) <= 1), `${bits} read back through wavefile`);
  }
  assert.equal(readPcm16Wav(new Uint8Array([1, 2, 3])), undefined);
  assert.throws(() => decodeWav(new Uint8Array([1, 2, 3])), /not a readable WAV file/);
});
