/** `hiwar serve`'s start-up lines about access say what each platform's check is, and where AudioSocket listens. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accessLines } from '../../src/cli/serve-security.ts';
import { routeAccess } from '../../transports/telephony/access.ts';
import { exotel } from '../../transports/telephony/exotel.ts';
import { twilio } from '../../transports/telephony/twilio.ts';

test('a configured secret is named as what webhooks are checked against (Exotel has Basic credentials, no signature); the AudioSocket line names its port', () => {
  const settings = { secretOf: () => 'set' };
  // It said "webhooks need a EXOTEL_BASIC_AUTH signature": Exotel signs nothing, the secret is the URL's Basic credentials.
  assert.equal(routeAccess(exotel, settings).line, 'exotel     webhooks checked against EXOTEL_BASIC_AUTH, media the per-call token they hand out');
  assert.equal(routeAccess(twilio, settings).line, 'twilio     webhooks checked against TWILIO_AUTH_TOKEN, media the per-call token they hand out');
  const lines = (audiosocket?: number) => accessLines({ open: false, host: '127.0.0.1', platforms: [], ledgerWhere: 'this process', ...(audiosocket === undefined ? {} : { audiosocket }) });
  assert.ok(lines(9092).includes('    audiosocket TCP port 9092: peers on loopback or HIWAR_AUDIOSOCKET_ALLOW only (AudioSocket carries no token)'), lines(9092).join('\n'));
  assert.ok(lines(0).some((l) => l.includes('audiosocket TCP: peers on loopback')), 'port 0 (a free one) is not named');
  assert.ok(!lines().some((l) => l.includes('audiosocket')));
});
