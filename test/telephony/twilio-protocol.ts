import { mulaw } from '../../src/audio/g711.ts';
import { b64, fromB64, json, parseJson } from '../../transports/telephony/provider.ts';
import type { PlatformProtocol, ServerSays } from './far-end.ts';

/** Twilio's side of a bidirectional Media Stream, as documented (for the far end in tests). */
export function twilioProtocol(callSid: string, customParameters: Record<string, string> = {}, streamSid = `MZ${callSid}`): PlatformProtocol & { wrongSid: number } {
  let n = 1;
  const p = {
    rate: 8000,
    wrongSid: 0,
    opening: () => [
      json({ event: 'connected', protocol: 'Call', version: '1.0.0' }),
      json({
        event: 'start',
        sequenceNumber: String(n++),
        streamSid,
        start: { accountSid: 'ACtest', streamSid, callSid, tracks: ['inbound'], customParameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
      }),
    ],
    audio: (pcm: Int16Array, seq: number) =>
      json({ event: 'media', sequenceNumber: String(n++), streamSid, media: { track: 'inbound', chunk: String(seq), timestamp: String(seq * 20), payload: b64(mulaw.encode(pcm)) } }),
    dtmf: (digit: string) => json({ event: 'dtmf', streamSid, sequenceNumber: String(n++), dtmf: { track: 'inbound_track', digit } }),
    stop: () => json({ event: 'stop', sequenceNumber: String(n++), streamSid, stop: { accountSid: 'ACtest', callSid } }),
    read(msg: Parameters<PlatformProtocol['read']>[0]): ServerSays[] {
      const m = parseJson(msg);
      if (!m) return [{ type: 'other', raw: msg }];
      if (m.streamSid !== streamSid) p.wrongSid++;
      if (m.event === 'media') return [{ type: 'audio', pcm: mulaw.decode(fromB64(m.media.payload)) }];
      if (m.event === 'mark') return [{ type: 'mark', name: m.mark.name }];
      if (m.event === 'clear') return [{ type: 'clear' }];
      return [{ type: 'other', raw: m }];
    },
    ackMark: (name: string) => json({ event: 'mark', sequenceNumber: String(n++), streamSid, mark: { name } }),
    // Twilio sends back every mark still queued when a clear empties its buffer.
    onClear: (dropped: string[]) => dropped.map((name) => p.ackMark(name)),
  };
  return p;
}
