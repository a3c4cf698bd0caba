import type { PlatformProtocol } from './far-end.ts';
import { l16Decode, l16Encode } from './far-codec.ts';

/** A user's own gateway speaking the generic protocol: binary PCM16, JSON control, marks echoed. */
export function gatewayProtocol(): PlatformProtocol {
  return {
    rate: 16000,
    opening: () => [],
    audio: (pcm) => ({ binary: l16Encode(pcm) }),
    dtmf: (digit) => ({ text: JSON.stringify({ type: 'dtmf', digit }) }),
    stop: () => ({ text: JSON.stringify({ type: 'hangup' }) }),
    read(msg) {
      if ('binary' in msg) return [{ type: 'audio', pcm: l16Decode(msg.binary) }];
      const m = JSON.parse(msg.text);
      if (m.type === 'clear') return [{ type: 'clear' }];
      if (m.type === 'mark') return [{ type: 'mark', name: m.name }];
      return [{ type: 'other', raw: m }];
    },
    ackMark: (name) => ({ text: JSON.stringify({ type: 'mark', name }) }),
  };
}
