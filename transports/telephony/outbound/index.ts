/**
 * Outbound calls: place a call through Twilio, Telnyx, Plivo or Vonage with its media streamed
 * back to this server's telephony routes, and follow it to a typed outcome (docs/outbound.md).
 */
export { outboundCalls, platformsFromEnv, type Outbound, type OutboundOptions } from './routes.ts';
export { OutboundCalls, OUTBOUND_DEFAULTS, PlaceCallError, type OutboundCall, type PlaceCallRequest } from './calls.ts';
export { CALL_RECORDS_DEFAULTS, fold, MemoryCallRecords, RedisCallRecords, summaryOf, type CallChange, type CallRecords, type CallSessionSummary, type RecordsRedis, type RecordsRedisMulti, type RecordsRedisSubscriber } from './records.ts';
export { twilioOutbound, type TwilioOutboundOptions } from './twilio.ts';
export { telnyxOutbound, type TelnyxOutboundOptions } from './telnyx.ts';
export { plivoOutbound, type PlivoOutboundOptions } from './plivo.ts';
export { vonageOutbound, type VonageOutboundOptions } from './vonage.ts';
export { DialError, FINAL_OUTCOMES, type DialRequest, type DialResult, type OutboundOutcome, type OutboundPlatform, type OutboundPlatformName, type OutboundStatus, type StatusUpdate } from './types.ts';
