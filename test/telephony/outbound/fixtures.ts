/**
 * The platforms' documented answers and callbacks, as the fake platforms send them. Each is
 * transcribed from the example on the platform's reference page named above it (fields and
 * values as shown there; ids and numbers replaced by the test's own, which the fake fills in).
 */

/**
 * Twilio, "Create a Call resource", response 201 (twilio.com/docs/voice/api/call-resource#create-a-call-resource).
 */
export const twilioCreated = (sid: string, accountSid: string, to: string, from: string) => ({
  account_sid: accountSid,
  annotation: null,
  answered_by: null,
  api_version: '2010-04-01',
  caller_name: null,
  date_created: 'Tue, 31 Aug 2010 20:36:28 +0000',
  date_updated: 'Tue, 31 Aug 2010 20:36:44 +0000',
  direction: 'outbound-api',
  duration: null,
  end_time: null,
  forwarded_from: null,
  from,
  from_formatted: from,
  group_sid: null,
  parent_call_sid: null,
  phone_number_sid: 'PNXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  price: null,
  price_unit: 'USD',
  sid,
  start_time: null,
  status: 'queued',
  subresource_uris: { notifications: `/2010-04-01/Accounts/${accountSid}/Calls/${sid}/Notifications.json`, recordings: `/2010-04-01/Accounts/${accountSid}/Calls/${sid}/Recordings.json` },
  to,
  to_formatted: to,
  trunk_sid: null,
  uri: `/2010-04-01/Accounts/${accountSid}/Calls/${sid}.json`,
  queue_time: '1000',
});

/** Twilio, an error of the REST API (twilio.com/docs/usage/twilios-response#response-formats-exceptions). */
export const twilioError = { code: 21211, message: "The 'To' number +9665000 is not a valid phone number.", more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 };

/**
 * Twilio, a status callback (twilio.com/docs/voice/api/call-resource#statuscallback): form fields
 * sent to StatusCallback for each StatusCallbackEvent; CallDuration only once completed.
 */
export const twilioStatus = (sid: string, accountSid: string, to: string, from: string, status: string, seq: number, duration?: number) => ({
  AccountSid: accountSid,
  ApiVersion: '2010-04-01',
  CallSid: sid,
  CallStatus: status,
  CallbackSource: 'call-progress-events',
  Called: to,
  Caller: from,
  Direction: 'outbound-api',
  From: from,
  SequenceNumber: String(seq),
  Timestamp: 'Tue, 31 Aug 2010 20:36:44 +0000',
  To: to,
  ...(duration !== undefined ? { CallDuration: String(duration), Duration: String(Math.ceil(duration / 60)) } : {}),
});

/** Telnyx, "Dial", response 200 (developers.telnyx.com/api-reference/call-commands/dial). */
export const telnyxDialed = (callControlId: string) => ({
  data: {
    call_control_id: callControlId,
    call_leg_id: '2dc6fc34-f9e0-11ea-b68e-02420a0f7768',
    call_session_id: '2dc1b3c8-f9e0-11ea-bc5a-02420a0f7768',
    is_alive: false,
    record_type: 'call',
  },
});

/** Telnyx, a Call Control webhook (developers.telnyx.com/api-reference/callbacks: call.initiated, call.answered, call.hangup). */
export const telnyxEvent = (eventType: string, callControlId: string, clientState: string, to: string, from: string, extra: Record<string, string> = {}) => ({
  data: {
    event_type: eventType,
    id: '0ccc7b54-4df3-4bca-a65a-3da1ecc777f0',
    occurred_at: '2018-02-02T22:25:27.521992Z',
    payload: {
      call_control_id: callControlId,
      call_leg_id: '2dc6fc34-f9e0-11ea-b68e-02420a0f7768',
      call_session_id: '2dc1b3c8-f9e0-11ea-bc5a-02420a0f7768',
      client_state: clientState,
      connection_id: '7267xxxxxxxxxxxxxx',
      direction: 'outgoing',
      from,
      to,
      state: eventType === 'call.initiated' ? 'bridging' : eventType === 'call.answered' ? 'answered' : 'hangup',
      ...extra,
    },
    record_type: 'event',
  },
  meta: { attempt: 1, delivered_to: 'https://example.com/webhooks' },
});

/** Telnyx, an error (developers.telnyx.com/development/api-fundamentals/api-errors). */
export const telnyxError = { errors: [{ code: '10015', title: 'Bad Request', detail: 'The request failed because it was not well-formed.', source: { pointer: '/to' } }] };

/** Plivo, "Make an outbound call", response 201 (plivo.com/docs/voice/api/call/make-a-call). */
export const plivoFired = (requestUuid: string) => ({ api_id: '97ceeb52-58b6-11e1-86da-77300b68f8bb', message: 'call fired', request_uuid: requestUuid });

/** Plivo, an error of the Call API (plivo.com/docs/voice/api/overview/errors): `error` carries the message. */
export const plivoError = { api_id: 'c7b8c4f8-58b6-11e1-86da-77300b68f8bb', error: 'invalid destination number' };

/**
 * Plivo, the ring, answer and hangup URLs' parameters (plivo.com/docs/voice/api/call/make-a-call#callback
 * and plivo.com/docs/account/api/application): form fields; Duration and HangupCause on hangup.
 */
export const plivoCallback = (callUuid: string, requestUuid: string, to: string, from: string, status: string, extra: Record<string, string> = {}) => ({
  ALegRequestUUID: requestUuid,
  ALegUUID: callUuid,
  CallStatus: status,
  CallUUID: callUuid,
  Direction: 'outbound',
  Event: status === 'ringing' ? 'Ring' : status === 'in-progress' ? 'StartApp' : 'Hangup',
  From: from,
  RequestUUID: requestUuid,
  To: to,
  ...extra,
});

/** Vonage, "Create an outbound call", response 201 (developer.vonage.com/en/api/voice#createCall). */
export const vonageCreated = (uuid: string) => ({ uuid, status: 'started', direction: 'outbound', conversation_uuid: 'CON-f972836a-550f-45fa-956c-12a2ab5b7d22' });

/** Vonage, an error (developer.vonage.com/en/api/voice#createCall, 400): RFC 7807 problem details. */
export const vonageError = { type: 'https://developer.nexmo.com/api-errors#bad-request', title: 'Bad Request', detail: 'The to number is invalid', instance: 'bf0ca0bf927b3b52e3cb03217e1a1ddf' };

/** Vonage, a call event to event_url (developer.vonage.com/en/voice/voice-api/webhook-reference#event-webhook). */
export const vonageEvent = (uuid: string, to: string, from: string, status: string, extra: Record<string, string> = {}) => ({
  from,
  to,
  uuid,
  conversation_uuid: 'CON-f972836a-550f-45fa-956c-12a2ab5b7d22',
  status,
  direction: 'outbound',
  timestamp: '2020-01-01T12:00:00.000Z',
  ...extra,
});
