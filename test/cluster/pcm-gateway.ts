import { decode, encode } from '../../transports/telephony/codec.ts';
import type { PlatformProtocol } from '../telephony/far-end.ts';

const L16 = { codec: 'l16', sampleRate: 16000, frameMs: 20 } as const;

/** A platform gateway on the generic pcm media stream (16 kHz L16), acknowledging marks. */
export const pcmGateway = (): PlatformProtocol => ({
  rate: 16000,
  opening: () => [],
  audio: (pcm) => ({ binary: encode(L16, pcm) }),
  stop: () => ({ text: JSON.stringify({ type: 'hangup' }) }),
  read(msg) {
    if ('binary' in msg) return [{ type: 'audio', pcm: decode(L16, msg.binary) }];
    const m = JSON.parse(msg.text);
    return m.type === 'mark' ? [{ type: 'mark', name: m.name }] : m.type === 'clear' ? [{ type: 'clear' }] : [{ type: 'other', raw: m }];
  },
  ackMark: (name) => ({ text: JSON.stringify({ type: 'mark', name }) }),
});
