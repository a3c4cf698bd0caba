/**
 * G.711 against the standard itself: the 256 decoder output values of ITU-T G.711's tables
 * (test/fixtures/codecs/g711-table.json, written out literally with their source) are what hiwar
 * decodes each code to, and encoding each of those values gives the code back. Checked for the
 * codec module and for the telephony transport's wire codec, which every platform goes through.
 * Also L16's byte order on the wire, against literal bytes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alaw, mulaw } from '../../src/audio/g711.ts';
import { decode, encode } from '../../transports/telephony/codec.ts';
import { g711Table } from '../telephony/fixture-files.ts';

const table = g711Table();
const codes = Uint8Array.from({ length: 256 }, (_, i) => i);

test('the fixture is the standard table: 256 values a law, odd-symmetric, the segment ends in place', () => {
  for (const law of ['mulaw', 'alaw'] as const) {
    assert.equal(table[law].length, 256, law);
    // Codes c and c ^ 0x80 are the same step with the other sign.
    for (let c = 0; c < 128; c++) assert.equal(table[law][c]! + table[law][c | 0x80]!, 0, `${law} ${c}`);
  }
  // Largest magnitudes: 8031 (14-bit) × 4 and 4032 (13-bit) × 8; smallest: 0 and 1 × 8.
  assert.deepEqual([table.mulaw[0x00], table.mulaw[0x80], table.mulaw[0xff], table.mulaw[0x7f]], [-32124, 32124, 0, 0]);
  assert.deepEqual([table.alaw[0x2a], table.alaw[0xaa], table.alaw[0xd5], table.alaw[0x55]], [-32256, 32256, 8, -8]);
});

for (const law of ['mulaw', 'alaw'] as const) {
  const ours = law === 'mulaw' ? mulaw : alaw;
  const wire = { codec: law, sampleRate: 8000, frameMs: 20 } as const;

  test(`${law}: every one of the 256 codes decodes to the standard's value (codec and wire codec)`, () => {
    assert.deepEqual([...ours.decode(codes)], table[law]);
    assert.deepEqual([...decode(wire, codes)], table[law]);
  });

  test(`${law}: encoding each standard value gives its code back`, () => {
    const values = Int16Array.from(table[law]);
    // mu-law has two zeros (0x7f is "-0"); an encoder writes +0, 0xff. A-law has no zero.
    const expected = law === 'mulaw' ? [...codes].map((c) => (c === 0x7f ? 0xff : c)) : [...codes];
    assert.deepEqual([...ours.encode(values)], expected);
    assert.deepEqual([...encode(wire, values)], expected);
  });

  test(`${law}: a value between two neighbouring steps encodes to one of those two steps`, () => {
    const steps = [...new Set(table[law])].sort((a, b) => a - b);
    for (let i = 1; i < steps.length; i++) {
      const [a, b] = [steps[i - 1]!, steps[i]!];
      const mid = Math.round((a + b) / 2);
      const got = table[law][ours.encode(Int16Array.of(mid))[0]!];
      assert.ok(got === a || got === b, `${law}: ${mid}, between ${a} and ${b}, became ${got}`);
    }
  });
}

test('L16 byte order: little-endian by default, big-endian where the platform says (Telnyx RTP)', () => {
  const samples = Int16Array.of(258, -2, 32767, -32768);
  const le = { codec: 'l16', sampleRate: 16000, frameMs: 20 } as const;
  const be = { ...le, endian: 'be' } as const;
  assert.equal(Buffer.from(encode(le, samples)).toString('hex'), '0201feffff7f0080');
  assert.equal(Buffer.from(encode(be, samples)).toString('hex'), '0102fffe7fff8000');
  assert.deepEqual([...decode(le, Buffer.from('0201feffff7f0080', 'hex'))], [258, -2, 32767, -32768]);
  assert.deepEqual([...decode(be, Buffer.from('0102fffe7fff8000', 'hex'))], [258, -2, 32767, -32768]);
  assert.deepEqual([...decode(le, Buffer.from('020103', 'hex'))], [258], 'an odd trailing byte is dropped');
});
