import assert from 'node:assert/strict';
import { test } from 'node:test';
import { afterListen } from '../../transports/telephony/jambonz.ts';
import { summaryHeaderValue, type AfterStream, type WebhookContext } from '../../transports/telephony/provider.ts';
import { twilio } from '../../transports/telephony/twilio.ts';
import { vonage } from '../../transports/telephony/vonage.ts';

const summary = 'المتصل فقد بطاقته، تم إيقافها';
const ctx = (next: AfterStream, params: Record<string, string>) => ({ params, afterStream: () => next }) as unknown as WebhookContext;

test('a summary is carried as X-Hiwar-Summary, percent-encoded, where the platform sets SIP headers', async () => {
  const encoded = summaryHeaderValue(summary);
  assert.equal(decodeURIComponent(encoded), summary, 'it decodes back to the text');
  assert.match(encoded, /^[\x21-\x7e]+$/, 'ASCII only, as a SIP header must be');
  const sip = await twilio.answer!('after', ctx({ action: 'transfer', target: 'sip:desk@pbx.example', summary }, { CallSid: 'CA1' }));
  assert.match(sip.body, new RegExp(`<Dial><Sip>sip:desk@pbx.example\\?X-Hiwar-Summary=${encoded.replace(/%/g, '%')}</Sip></Dial>`));
  const number = await twilio.answer!('after', ctx({ action: 'transfer', target: '+966920000000', summary }, { CallSid: 'CA2' }));
  assert.match(number.body, /<Dial>\+966920000000<\/Dial>/, 'a number has no field for it');
  assert.deepEqual(afterListen({ action: 'transfer', target: '+966920000000', summary })[0], {
    verb: 'dial',
    target: [{ type: 'phone', number: '+966920000000' }],
    headers: { 'X-Hiwar-Summary': encoded },
  });
  const ncco = await vonage.answer!('event', ctx({ action: 'transfer', target: 'sip:desk@pbx.example', summary }, { uuid: 'v1', status: 'completed' }));
  assert.deepEqual(JSON.parse(ncco.body)[0].endpoint, [{ type: 'sip', uri: 'sip:desk@pbx.example', headers: { 'X-Hiwar-Summary': encoded } }]);
});

test('without a summary the transfer markup is as before', async () => {
  const sip = await twilio.answer!('after', ctx({ action: 'transfer', target: 'sip:desk@pbx.example' }, { CallSid: 'CA3' }));
  assert.match(sip.body, /<Dial><Sip>sip:desk@pbx.example<\/Sip><\/Dial>/);
  assert.deepEqual(afterListen({ action: 'transfer', target: 'sip:desk@pbx' })[0], { verb: 'dial', target: [{ type: 'sip', sipUri: 'sip:desk@pbx' }] });
});
