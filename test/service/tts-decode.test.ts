/** TTS socket audio: base64 decoded once into its own aligned buffer, odd trailing bytes dropped. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pcmFromBase64 } from '../../src/service/ws/tts.ts';

test('decodes PCM16 from base64 exactly as Buffer does, into an aligned buffer of its own', () => {
  const pcm = new Int16Array([1, -2, 300, -32768, 32767]);
  const bytes = Buffer.from(pcm.buffer);
  for (const b64 of [bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, ''), bytes.subarray(0, 9).toString('base64'), 'QUJD\nREVG', '', 'AQ==']) {
    const ref = Buffer.from(b64, 'base64');
    const expected = [...new Int16Array(new Uint8Array(ref).buffer, 0, ref.length >> 1)];
    const got = pcmFromBase64(b64);
    assert.deepEqual([...got], expected, b64);
    assert.equal(got.byteOffset, 0);
    assert.notEqual(got.buffer, ref.buffer);
  }
  assert.deepEqual([...pcmFromBase64(bytes.toString('base64'))], [...pcm]);
});
