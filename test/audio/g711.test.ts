/**
 * The G.711 tables against the library they cache: every byte decodes and every 16-bit sample
 * encodes exactly as alawmulaw computes it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import alawmulaw from 'alawmulaw';
import { alaw, mulaw } from '../../src/audio/g711.ts';

const everySample = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i);

for (const [name, ours, lib] of [
  ['mu-law', mulaw, alawmulaw.mulaw],
  ['A-law', alaw, alawmulaw.alaw],
] as const) {
  test(`${name}: every sample encodes and every byte decodes as alawmulaw does`, () => {
    assert.deepEqual(ours.encode(everySample), lib.encode(everySample));
    assert.deepEqual(ours.decode(everyByte), lib.decode(everyByte));
  });

  test(`${name}: a frame survives encode → decode within the law's step, and empty input is empty`, () => {
    const pcm = Int16Array.from({ length: 160 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)));
    const back = ours.decode(ours.encode(pcm));
    assert.equal(back.length, 160);
    for (let i = 0; i < pcm.length; i++) assert.ok(Math.abs(back[i]! - pcm[i]!) <= Math.max(16, Math.abs(pcm[i]!) / 16), `sample ${i}: ${pcm[i]} → ${back[i]}`);
    assert.equal(ours.encode(new Int16Array(0)).length, 0);
    assert.equal(ours.decode(new Uint8Array(0)).length, 0);
  });
}

test('a view into a larger buffer encodes and decodes only its own samples', () => {
  const big = new Int16Array([1, 2, 3, 30000, -30000, 7]);
  assert.deepEqual(mulaw.encode(big.subarray(3, 5)), alawmulaw.mulaw.encode(new Int16Array([30000, -30000])));
  const bytes = new Uint8Array([0, 0xff, 0x80, 0x7f]);
  assert.deepEqual(mulaw.decode(bytes.subarray(1, 3)), alawmulaw.mulaw.decode(new Uint8Array([0xff, 0x80])));
});
