/** Campaigns placed through hiwar's outbound calls (docs/campaigns.md). */
export { outboundDialer, resultOfCall, type CallPlacer, type OutboundDialerOptions } from './dialer.ts';
