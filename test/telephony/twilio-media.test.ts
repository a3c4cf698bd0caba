import assert from 'node:assert/strict';
import { test } from 'node:test';
import { twilio } from '../../transports/telephony/twilio.ts';
import { base64Bytes, readTwilioMedia } from '../../transports/telephony/twilio-media.ts';
import type { Inbound } from '../../transports/telephony/provider.ts';
import { platformFixture } from './fixture-files.ts';

const media = platformFixture('twilio').fromPlatform.media.message as { media: Record<string, string> };
/** The fixture's payload, as its note gives it: 8 mu-law bytes. */
const PAYLOAD = [0x00, 0x80, 0xff, 0x7f, 0x0f, 0x8f, 0x55, 0xd5];

const parse = (text: string): Inbound[] => twilio.open({} as never).parse({ text });
/** The message as the socket hands it: its bytes, read in place. */
const read = (text: string) => readTwilioMedia(Buffer.from(text));
const audio = (items: Inbound[]) => items.map((i) => (i.type === 'audio' ? { seq: i.seq, bytes: [...i.payload] } : i));

/** Calls to JSON.parse while `fn` runs. */
function jsonParses<T>(fn: () => T): { result: T; calls: number } {
  const real = JSON.parse;
  let calls = 0;
  JSON.parse = ((...args: Parameters<typeof JSON.parse>) => (calls++, real(...args))) as typeof JSON.parse;
  try {
    return { result: fn(), calls };
  } finally {
    JSON.parse = real;
  }
}

test('twilio: the documented media message is read from its bytes without JSON.parse, to the frame JSON gives', () => {
  const text = JSON.stringify(media);
  const { result, calls } = jsonParses(() => read(text));
  assert.equal(calls, 0);
  assert.deepEqual(audio(result!), [{ seq: 1, bytes: PAYLOAD }]);
  assert.deepEqual(audio(parse(text)), [{ seq: 1, bytes: PAYLOAD }]);
  // Without a chunk the frame is unordered, as JSON's reading makes it.
  const noChunk = text.replace('"chunk":"1",', '');
  assert.notEqual(noChunk, text);
  assert.deepEqual(audio(read(noChunk)!), [{ seq: undefined, bytes: PAYLOAD }]);
  assert.deepEqual(audio(parse(noChunk)), [{ seq: undefined, bytes: PAYLOAD }]);
});

test('twilio: media messages in any other shape are parsed as JSON, to the same frame', () => {
  const shapes = {
    'spaces (pretty-printed)': JSON.stringify(media, null, 2),
    'an escaped slash in the payload': JSON.stringify(media).replace('AID/fw', 'AID\\/fw'),
    'event not first': JSON.stringify({ streamSid: 'MZ1', media: media.media, event: 'media' }),
    'an object inside media': JSON.stringify({ ...media, media: { ...media.media, extra: { a: 1 } } }),
  };
  for (const [what, text] of Object.entries(shapes)) {
    assert.equal(read(text), undefined, what);
    const { result, calls } = jsonParses(() => parse(text));
    assert.equal(calls, 1, what);
    assert.deepEqual(audio(result), [{ seq: 1, bytes: PAYLOAD }], what);
  }
});

test('twilio: a chunk that is not plain digits is left to the JSON reader, whose Number() decides it', () => {
  for (const [chunk, seq] of [['', 0], ['1e3', 1000], [' 7', 7], ['x', undefined]] as const) {
    const text = JSON.stringify({ ...media, media: { ...media.media, chunk } });
    assert.equal(read(text), undefined, JSON.stringify(chunk));
    assert.deepEqual(audio(parse(text)), [{ seq, bytes: PAYLOAD }], JSON.stringify(chunk));
  }
});

test('twilio: the other track is ignored and a broken media message is invalid, whichever reader sees it', () => {
  for (const track of ['outbound', 'in', 'inbound2']) {
    const text = JSON.stringify({ ...media, media: { ...media.media, track } });
    assert.deepEqual(read(text), [], track);
    assert.deepEqual(parse(text), [], track);
  }
  // The track last, its value shorter than "inbound" at the very end of the message.
  assert.deepEqual(read('{"event":"media","media":{"payload":"AA==","track":"x"}}'), []);
  const text = JSON.stringify(media);
  for (const broken of [text.slice(0, -1), text.slice(0, text.indexOf('"payload"')) + '"payload":"AID/fw}}', '{"event":"media","media":{"chunk":"1"}}']) {
    assert.equal(read(broken), undefined, broken);
    const items = parse(broken);
    assert.equal(items.length, 1, broken);
    assert.equal(items[0]!.type, 'invalid', broken);
  }
});

test('twilio: base64 read from bytes gives what Node decodes, and anything but plain base64 goes to the JSON reader', () => {
  // Every length from 0 to 400 bytes (padding of 0, 1 and 2 characters), random bytes.
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 255;
  for (let n = 0; n <= 400; n++) {
    const bytes = Buffer.from(Array.from({ length: n }, rand));
    const b64 = Buffer.from(` ${bytes.toString('base64')} `);
    assert.deepEqual(Buffer.from(base64Bytes(b64, 1, b64.length - 1)!), bytes, `length ${n}`);
    // Unpadded base64 is read as well.
    const bare = Buffer.from(bytes.toString('base64').replace(/=+$/, ''));
    assert.deepEqual(Buffer.from(base64Bytes(bare, 0, bare.length)!), bytes, `unpadded length ${n}`);
  }
  for (const bad of ['AID-fw+PVdU=', 'AID_fw+PVdU=', 'AID fw+PVdU=', 'AID/fw+PVdU=A', 'A===', 'AID/f=w+PVdU=', 'AID/fw+PVdU==', 'ب']) {
    const b = Buffer.from(bad);
    assert.equal(base64Bytes(b, 0, b.length), undefined, bad);
  }
  const text = JSON.stringify({ ...media, media: { ...media.media, payload: 'AID_fw-PVdU=' } });
  assert.equal(read(text), undefined);
  assert.equal(parse(text)[0]!.type, 'audio');
});
