/**
 * Every telephony platform hiwar speaks, for `hiwar serve` to mount in one plugin. To add a
 * platform: write `<name>.ts` exporting a `TelephonyProvider`, and add it to `providers` below.
 */
import type { CallHost, PluginContext, ServerPlugin } from '../../src/server/types.ts';
import { telephonyPlugin as plugin, type TelephonyOptions } from './plugin.ts';
import type { TelephonyProvider } from './provider.ts';
import type { RouteAccess } from './access.ts';
import { plivo } from './plivo.ts';
import { telnyx } from './telnyx.ts';
import { twilio } from './twilio.ts';
import { vonage } from './vonage.ts';
import { exotel } from './exotel.ts';
import { freeswitch } from './freeswitch.ts';
import { jambonz, jambonzProvider, type JambonzOptions } from './jambonz.ts';
import { asterisk } from './asterisk.ts';
import { pcm } from './pcm.ts';

/** Every telephony platform `hiwar serve` mounts, one `TelephonyProvider` each. */
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

/** Options of the providers that have some, by name. */
export interface ProviderOptions {
  /** `JAMBONZ_DEFAULTS`: whether the listen verbs answered ask for playout marks. */
  jambonz?: JambonzOptions;
}

/** Every provider above, those with options made with them. */
export function providersWith(o: ProviderOptions = {}): TelephonyProvider[] {
  return o.jambonz ? providers.map((p) => (p === jambonz ? jambonzProvider(o.jambonz) : p)) : providers;
}

/** The telephony routes of every provider above (or those given in `opts.providers`), with `opts.jambonz`. */
export function telephonyPlugin(host: CallHost, opts: Omit<TelephonyOptions, 'providers'> & { providers?: TelephonyProvider[] } & ProviderOptions): ServerPlugin & {
  /** Media connections open now. */
  connections(): number;
  access: RouteAccess[];
} {
  const { jambonz: jambonzOptions, ...rest } = opts;
  if (opts.providers && jambonzOptions) throw new TypeError('telephonyPlugin: give `jambonz` options or `providers` (with `jambonzProvider(options)` in it), not both');
  return plugin(host, { ...rest, providers: opts.providers ?? providersWith({ ...(jambonzOptions ? { jambonz: jambonzOptions } : {}) }) });
}

export { TELEPHONY_ROUTE_DEFAULTS, type TelephonyOptions } from './plugin.ts';
export { routeAccess, type RouteAccess } from './access.ts';
export type { TelephonyProvider, ProviderConnection, Inbound, MediaFormat, WireMessage } from './provider.ts';
export { MediaStreamTransport, MediaStreamOutput, type MediaSink, type MediaStreamOptions, type PlatformHooks } from './media-stream.ts';
export { MediaConnection, MEDIA_CONNECTION_DEFAULTS } from './connection.ts';
export { jambonzProvider, jambonzOptionsFromEnv, JAMBONZ_DEFAULTS, type JambonzOptions } from './jambonz.ts';
export { listenAudioSocket, startAudioSocketServer, type AudioSocketServerOptions } from './audiosocket-server.ts';

/** Options of `telephonyRoutes`: the plugin's, with the server's tokens, openness and hooks as defaults. */
export type TelephonyRoutesOptions = Omit<TelephonyOptions, 'providers' | 'tokens' | 'open'> & Partial<Pick<TelephonyOptions, 'providers' | 'tokens' | 'open'>> & ProviderOptions;

/**
 * The telephony routes (`/telephony/<provider>`) as a plugin factory for `createAgentServer`
 * (`hiwar/server`): the server's token issuer, `open`, fixed media token, logger and
 * `providerHooks` are used unless given here.
 *
 * @example
 * const voice = await createAgentServer({ agent, plugins: [telephonyRoutes()] });
 * await voice.listen(); // Twilio's webhook: POST /telephony/twilio (TWILIO_AUTH_TOKEN set)
 */
export function telephonyRoutes(opts: TelephonyRoutesOptions = {}): (ctx: PluginContext) => ReturnType<typeof telephonyPlugin> {
  return (ctx) =>
    telephonyPlugin(ctx.host, {
      tokens: ctx.tokens,
      open: ctx.open,
      mediaToken: ctx.mediaToken,
      logger: ctx.logger,
      ledger: ctx.ledger,
      ...opts,
      hooks: { ...ctx.providerHooks, ...opts.hooks },
    });
}

/** Outbound calls through the platforms' REST APIs (`outboundCalls().placeCall`, `POST /calls`): docs/outbound.md. */
export * from './outbound/index.ts';

/** Campaigns through outbound calls (`outboundDialer`): docs/campaigns.md. */
export * from './campaign/index.ts';
