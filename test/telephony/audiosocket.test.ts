import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderConnection } from '../../transports/telephony/provider.ts';
import { startOf } from './wire.ts';
import { AudioSocketConnection } from '../../transports/telephony/audiosocket.ts';
import { FrameReader, encodeFrame, uuidFromBytes, uuidToBytes } from '../../transports/telephony/audiosocket-frames.ts';
import { allowList, peerAllowed } from '../../transports/telephony/audiosocket-server.ts';

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('audiosocket framing', () => {
  it('encodes type + 2-byte big-endian length + payload', () => {
    assert.deepEqual([...encodeFrame(0x10, new Uint8Array(320)).subarray(0, 3)], [0x10, 0x01, 0x40]);
    assert.deepEqual([...encodeFrame(0x00)], [0, 0, 0]);
    assert.throws(() => encodeFrame(0x10, new Uint8Array(70000)));
  });

  it('cuts a byte stream into frames whatever the chunking', () => {
    const stream = Buffer.concat([encodeFrame(0x01, uuidToBytes(UUID)), encodeFrame(0x10, new Uint8Array(320).fill(7)), encodeFrame(0x03, Buffer.from('5')), encodeFrame(0x00)]);
    for (const size of [1, 2, 3, 7, 100, stream.length]) {
      const r = new FrameReader();
      const frames: Buffer[] = [];
      for (let i = 0; i < stream.length; i += size) frames.push(...r.push(stream.subarray(i, i + size)));
      assert.deepEqual(frames.map((f) => f[0]), [0x01, 0x10, 0x03, 0x00], `chunks of ${size}`);
      assert.equal(frames[1]!.length, 323);
      assert.equal(r.buffered, 0);
    }
  });

  it('round-trips the call UUID', () => {
    assert.equal(uuidFromBytes(uuidToBytes(UUID)), UUID);
    assert.throws(() => uuidFromBytes(new Uint8Array(3)));
  });
});

describe('audiosocket connection', () => {
  it('starts on the first audio frame with the UUID as call id and the rate of the frame type', () => {
    const c: ProviderConnection = new AudioSocketConnection();
    assert.equal(c.parse({ binary: encodeFrame(0x10, new Uint8Array(320)) })[0]!.type, 'invalid', 'audio before UUID');
    assert.deepEqual(c.parse({ binary: encodeFrame(0x01, uuidToBytes(UUID)) }), []);
    const items = c.parse({ binary: encodeFrame(0x12, new Uint8Array(640)) });
    const s = startOf(items);
    assert.equal(s.call.callId, UUID);
    assert.equal(s.input.sampleRate, 16000);
    assert.equal(items[1]?.type === 'audio' && items[1].payload.byteLength, 640);
    assert.equal(c.parse({ binary: encodeFrame(0x10, new Uint8Array(320)) })[0]!.type, 'invalid', 'rate change mid-call');
    assert.deepEqual(c.parse({ binary: encodeFrame(0x03, Buffer.from('#')) }), [{ type: 'dtmf', digit: '#' }]);
    assert.deepEqual(c.parse({ binary: encodeFrame(0x00) }), [{ type: 'stop', reason: 'hangup' }]);
    assert.deepEqual(c.parse({ binary: encodeFrame(0xff, new Uint8Array([1])) }), [{ type: 'stop', reason: 'hangup' }]);
    assert.equal(c.parse({ binary: encodeFrame(0xff, new Uint8Array([2])) })[0]!.type, 'invalid');
    assert.equal(c.parse({ binary: encodeFrame(0x42, new Uint8Array(2)) })[0]!.type, 'invalid');
  });

  it('writes agent audio in the call frame type and hangs up with a 0x00 frame; no marks, no clear', () => {
    const c: ProviderConnection = new AudioSocketConnection();
    c.parse({ binary: encodeFrame(0x01, uuidToBytes(UUID)) });
    c.parse({ binary: encodeFrame(0x10, new Uint8Array(320)) });
    const out = (c.encodeAudio(new Uint8Array(320)) as { binary: Uint8Array }).binary;
    assert.deepEqual([...out.subarray(0, 3)], [0x10, 0x01, 0x40]);
    assert.deepEqual([...(c.hangup!()[0] as { binary: Uint8Array }).binary], [0, 0, 0]);
    assert.equal(c.mark, undefined);
    assert.equal(c.clear, undefined);
  });

  it('allows loopback and listed peers only', () => {
    const list = allowList(['10.1.0.0/16', '192.0.2.7', 'fd00::/8']);
    for (const ok of ['127.0.0.1', '::ffff:127.0.0.1', '::1', '10.1.2.3', '::ffff:10.1.9.9', '192.0.2.7', 'fd00::1']) assert.ok(peerAllowed(list, ok), ok);
    for (const no of ['10.2.0.1', '192.0.2.8', '8.8.8.8', 'fe80::1', undefined]) assert.ok(!peerAllowed(list, no), String(no));
    assert.throws(() => allowList(['10.0.0.0/40']));
  });
});
