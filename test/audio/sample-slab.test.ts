import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SampleSlab } from '../../src/audio/sample-slab.ts';
import { decode, encode } from '../../transports/telephony/codec.ts';

test('slab: short arrays share 8 KB buffers, zeroed, aligned, never overlapping; long ones get their own', () => {
  const slab = new SampleSlab(8192);
  const a = slab.samples(160);
  const b = slab.samples(161);
  const c = slab.samples(160);
  assert.equal(a.buffer, b.buffer, 'one buffer for short arrays');
  assert.equal(a.buffer.byteLength, 8192);
  for (const v of [a, b, c]) assert.equal(v.byteOffset % 8, 0, 'aligned to 8 bytes');
  assert.ok(b.byteOffset >= a.byteOffset + a.byteLength && c.byteOffset >= b.byteOffset + b.byteLength, 'no overlap');
  a.fill(7);
  assert.ok(b.every((x) => x === 0) && c.every((x) => x === 0), 'writing one leaves the others as they were');
  // 8192 / 320 bytes: the 26th frame of 160 samples starts a new buffer.
  const more = Array.from({ length: 30 }, () => slab.samples(160));
  assert.notEqual(more.at(-1)!.buffer, a.buffer);
  const long = slab.samples(2048); // 4 KB: more than a quarter of the slab
  assert.equal(long.byteOffset, 0);
  assert.equal(long.buffer.byteLength, 4096, 'its own buffer');
});

test('slab: bytes and samples share the slab without overlapping', () => {
  const slab = new SampleSlab(8192);
  const s = slab.samples(3);
  const b = slab.bytesOf(160);
  assert.equal(s.buffer, b.buffer);
  assert.ok(b.byteOffset >= s.byteOffset + s.byteLength && b.byteOffset % 8 === 0);
  b.fill(0xff);
  assert.deepEqual([...s], [0, 0, 0]);
  assert.equal(slab.bytesOf(4096).buffer.byteLength, 4096, 'a long one has its own buffer');
});

test('slab: encoded telephony frames are views of their own bytes', () => {
  const f = { codec: 'mulaw', sampleRate: 8000, frameMs: 20 } as const;
  const quiet = encode(f, new Int16Array(160));
  const loud = encode(f, new Int16Array(160).fill(8000));
  assert.equal(quiet.length, 160);
  assert.notEqual(quiet[0], loud[0], 'the second frame did not overwrite the first');
  assert.deepEqual([...decode(f, quiet)].slice(0, 2), [0, 0]);
  const l16 = encode({ codec: 'l16', sampleRate: 16000, frameMs: 20, endian: 'be' }, Int16Array.of(1, -2));
  assert.deepEqual([...l16], [0, 1, 0xff, 0xfe]);
});

test('slab: decoded telephony frames are views that keep their own samples', () => {
  const f = { codec: 'mulaw', sampleRate: 8000, frameMs: 20 } as const;
  const one = decode(f, new Uint8Array(160).fill(0x00));
  const two = decode(f, new Uint8Array(160).fill(0xff));
  assert.equal(one.length, 160);
  assert.ok(one.every((x) => x === one[0]) && two.every((x) => x === two[0]));
  assert.notEqual(one[0], two[0], 'the second frame did not overwrite the first');
  const l16 = decode({ codec: 'l16', sampleRate: 16000, frameMs: 20 }, Uint8Array.of(1, 0, 0xff, 0x7f));
  assert.deepEqual([...l16], [1, 32767]);
});
