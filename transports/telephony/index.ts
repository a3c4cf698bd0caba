/**
 * Every telephony platform hiwar speaks, for `hiwar serve` to mount in one plugin. To add a
 * platform: write `<name>.ts` exporting a `TelephonyProvider`, and add it to `providers` below.
 */
import type { CallHost, ServerPlugin } from '../../src/server/types.ts';
import { telephonyPlugin as plugin, type TelephonyOptions } from './plugin.ts';
import type { TelephonyProvider } from './provider.ts';
import type { RouteAccess } from './access.ts';
import { plivo } from './plivo.ts';
import { telnyx } from './telnyx.ts';
import { twilio } from './twilio.ts';
import { vonage } from './vonage.ts';
import { exotel } from './exotel.ts';
import { freeswitch } from './freeswitch.ts';
import { jambonz } from './jambonz.ts';
import { asterisk } from './asterisk.ts';
import { pcm } from './pcm.ts';

export const providers: TelephonyProvider[] = [
  twilio,
  telnyx,
  plivo,
  vonage,
  exotel,
  freeswitch,
  jambonz,
  asterisk,
  pcm,
];

/** The telephony routes of every provider above (or those given in `opts.providers`). */
export function telephonyPlugin(host: CallHost, opts: Omit<TelephonyOptions, 'providers'> & { providers?: TelephonyProvider[] }): ServerPlugin & { connections(): number; access: RouteAccess[] } {
  return plugin(host, { ...opts, providers: opts.providers ?? providers });
}

export type { TelephonyOptions } from './plugin.ts';
export { routeAccess, type RouteAccess } from './access.ts';
export type { TelephonyProvider, ProviderConnection, Inbound, MediaFormat, WireMessage } from './provider.ts';
export { MediaStreamTransport, MediaStreamOutput, type MediaSink, type MediaStreamOptions, type PlatformHooks } from './media-stream.ts';
export { MediaConnection, MEDIA_CONNECTION_DEFAULTS } from './connection.ts';
export { listenAudioSocket, startAudioSocketServer, type AudioSocketServerOptions } from './audiosocket-server.ts';
