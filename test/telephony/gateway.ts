import { decode, encode } from '../../transports/telephony/codec.ts';
import type { PlatformProtocol } from './far-end.ts';

const L16_16K = { codec: 'l16', sampleRate: 16000, frameMs: 20 } as const;

/** A user's own gateway speaking the generic protocol: binary PCM16, JSON control, marks echoed. */
export function gatewayProtocol(): PlatformProtocol {
  return {
    rate: 16000,
    opening: () => [],
    audio: (pcm) => ({ binary: encode(L16_16K, pcm) }),
    dtmf: (digit) => ({ text: JSON.stringify({ type: 'dtmf', digit }) }),
    stop: () => ({ text: JSON.stringify({ type: 'hangup' }) }),
    read(msg) {
      if ('binary' in msg) return [{ type: 'audio', pcm: decode(L16_16K, msg.binary) }];
      const m = JSON.parse(msg.text);
      if (m.type === 'clear') return [{ type: 'clear' }];
      if (m.type === 'mark') return [{ type: 'mark', name: m.name }];
      return [{ type: 'other', raw: m }];
    },
    ackMark: (name) => ({ text: JSON.stringify({ type: 'mark', name }) }),
  };
}
