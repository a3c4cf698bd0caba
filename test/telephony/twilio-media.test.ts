import assert from 'node:assert/strict';
import { test } from 'node:test';
import { twilio } from '../../transports/telephony/twilio.ts';
import { readTwilioMedia } from '../../transports/telephony/twilio-media.ts';
import type { Inbound } from '../../transports/telephony/provider.ts';
import { platformFixture } from './fixture-files.ts';

const media = platformFixture('twilio').fromPlatform.media.message as { media: Record<string, string> };
/** The fixture's payload, as its note gives it: 8 mu-law bytes. */
const PAYLOAD = [0x00, 0x80, 0xff, 0x7f, 0x0f, 0x8f, 0x55, 0xd5];

const parse = (text: string): Inbound[] => twilio.open({} as never).parse({ text });
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

test('twilio: the documented media message is read without JSON.parse, to the same frame', () => {
  const text = JSON.stringify(media);
  assert.deepEqual(readTwilioMedia(text), { payload: 'AID/fw+PVdU=', chunk: '1', track: 'inbound' });
  const { result, calls } = jsonParses(() => parse(text));
  assert.equal(calls, 0);
  assert.deepEqual(audio(result), [{ seq: 1, bytes: PAYLOAD }]);
});

test('twilio: media messages in any other shape are parsed as JSON, to the same frame', () => {
  const shapes = {
    'spaces (pretty-printed)': JSON.stringify(media, null, 2),
    'an escaped slash in the payload': JSON.stringify(media).replace('AID/fw', 'AID\\/fw'),
    'event not first': JSON.stringify({ streamSid: 'MZ1', media: media.media, event: 'media' }),
    'an object inside media': JSON.stringify({ ...media, media: { ...media.media, extra: { a: 1 } } }),
  };
  for (const [what, text] of Object.entries(shapes)) {
    assert.equal(readTwilioMedia(text), undefined, what);
    const { result, calls } = jsonParses(() => parse(text));
    assert.equal(calls, 1, what);
    assert.deepEqual(audio(result), [{ seq: 1, bytes: PAYLOAD }], what);
  }
});

test('twilio: the other track is ignored and a broken media message is invalid, whichever reader sees it', () => {
  assert.deepEqual(parse(JSON.stringify({ ...media, media: { ...media.media, track: 'outbound' } })), []);
  const text = JSON.stringify(media);
  for (const broken of [text.slice(0, -1), text.slice(0, text.indexOf('"payload"')) + '"payload":"AID/fw}}', '{"event":"media","media":{"chunk":"1"}}']) {
    const items = parse(broken);
    assert.equal(items.length, 1, broken);
    assert.equal(items[0]!.type, 'invalid', broken);
  }
});
