import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VirtualClock } from '../../src/transport/clock.ts';
import { MediaStreamOutput } from '../../transports/telephony/media-output.ts';
import type { ProviderConnection, WireMessage } from '../../transports/telephony/provider.ts';

test('telephony output: frames are cut from one reused buffer, yet each on the wire is its own audio, and a short tail is padded with silence (not the frame before)', async () => {
  const clock = new VirtualClock();
  const sent: Uint8Array[] = [];
  const conn: ProviderConnection = { parse: () => [], encodeAudio: (p) => ({ binary: p }) };
  const format = { codec: 'l16', sampleRate: 8000, frameMs: 20 } as const;
  const out = new MediaStreamOutput(format, conn, { send: (m: WireMessage) => 'binary' in m && sent.push(m.binary), close: () => {} }, { clock });
  // Two whole frames of distinct levels, then a 50-sample tail.
  const audio = new Int16Array(160 * 2 + 50);
  audio.fill(1000, 0, 160).fill(2000, 160, 320).fill(3000, 320);
  out.write({ samples: audio, sampleRate: 8000, time: 0 });
  await clock.advance(200);
  const frames = sent.map((b) => new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
  assert.equal(frames.length, 3);
  assert.ok(frames[0]!.every((s) => s === 1000), 'the first frame kept its samples after the next was cut');
  assert.ok(frames[1]!.every((s) => s === 2000));
  assert.ok(frames[2]!.subarray(0, 50).every((s) => s === 3000), 'the tail');
  assert.ok(frames[2]!.subarray(50).every((s) => s === 0), 'padded with silence');
  // Frames may share a slab (src/audio/sample-slab.ts), never bytes.
  const apart = (a: Uint8Array, b: Uint8Array) => a.buffer !== b.buffer || a.byteOffset + a.byteLength <= b.byteOffset || b.byteOffset + b.byteLength <= a.byteOffset;
  assert.ok(apart(sent[0]!, sent[1]!) && apart(sent[1]!, sent[2]!), 'each wire message has its own bytes');
  await out.close();
});
