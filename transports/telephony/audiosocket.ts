/**
 * Asterisk AudioSocket: `AudioSocket(${UUID()},hiwar-host:9092)` in the dialplan (or
 * `Dial(AudioSocket/host:port/uuid)`, or ARI external media) opens a TCP connection to
 * `hiwar serve --audiosocket-port 9092`. Every message is `[type:1][length:2 BE][payload]`
 * (`audiosocket-frames.ts`): the call UUID first, then 20 ms frames of signed linear audio (0x10,
 * 8 kHz; Asterisk 23 adds 0x11-0x18 for wider rates), DTMF digits (0x03), hang-up (0x00) and
 * errors (0xff).
 *
 * AudioSocket has no playout acknowledgement and no "flush": Asterisk plays what it gets as it
 * gets it. So the transport sends exactly one 20 ms frame per 20 ms of its clock, keeps no lead
 * beyond that, reports playout from the clock, and barge-in is simply not sending more. Hang-up
 * from our side is the 0x00 frame, sent before the socket closes.
 */
import { AUDIO_TYPES, AudioSocketKind, ERROR_CODES, encodeFrame, framePayload, frameType, uuidFromBytes } from './audiosocket-frames.ts';
import type { Inbound, MediaFormat, ProviderConnection, TelephonyProvider, WireMessage } from './provider.ts';

/** AudioSocket frames are 20 ms; Asterisk plays each as it arrives. */
export const AUDIOSOCKET_FRAME_MS = 20;

/**
 * One AudioSocket connection. Each `WireMessage` is one whole frame (header included), as the TCP
 * server's `FrameReader` cut it. The call starts on the first audio frame, whose type gives the
 * rate; the UUID frame before it gives the call id.
 */
export class AudioSocketConnection implements ProviderConnection {
  private uuid: string | undefined;
  private format: MediaFormat | undefined;
  private audioType = AudioSocketKind.slin8 as number;

  /** True once the first audio frame started the call. */
  get started(): boolean {
    return this.format !== undefined;
  }

  parse(msg: WireMessage): Inbound[] {
    if (!('binary' in msg) || msg.binary.byteLength < 3) return [{ type: 'invalid', reason: 'not an AudioSocket frame' }];
    const type = frameType(msg.binary);
    const payload = framePayload(msg.binary);
    switch (type) {
      case AudioSocketKind.uuid:
        if (this.uuid) return [{ type: 'invalid', reason: 'second UUID frame' }];
        try {
          this.uuid = uuidFromBytes(payload);
        } catch (err) {
          return [{ type: 'invalid', reason: (err as Error).message }, { type: 'stop', reason: 'bad UUID frame' }];
        }
        return [];
      case AudioSocketKind.dtmf: {
        const digit = String.fromCharCode(payload[0] ?? 0).toUpperCase();
        return this.format && /^[0-9*#A-D]$/.test(digit) ? [{ type: 'dtmf', digit }] : [{ type: 'invalid', reason: `DTMF frame ${JSON.stringify(digit)} ${this.format ? 'is not a digit' : 'before audio'}` }];
      }
      case AudioSocketKind.hangup:
        return [{ type: 'stop', reason: 'hangup' }];
      case AudioSocketKind.error: {
        const code = payload[0] ?? 0;
        return code === 0x01 ? [{ type: 'stop', reason: 'hangup' }] : [{ type: 'invalid', reason: `AudioSocket error: ${ERROR_CODES[code] ?? `code ${code}`}` }];
      }
      default: {
        const rate = AUDIO_TYPES.get(type);
        if (!rate) return [{ type: 'invalid', reason: `unknown AudioSocket frame type 0x${type.toString(16)}` }];
        if (this.format) {
          if (rate !== this.format.sampleRate) return [{ type: 'invalid', reason: `audio frame at ${rate} Hz in a ${this.format.sampleRate} Hz call` }];
          return [{ type: 'audio', payload: payload.slice() }];
        }
        if (!this.uuid) return [{ type: 'invalid', reason: 'audio before the UUID frame' }];
        this.audioType = type;
        this.format = { codec: 'l16', sampleRate: rate, frameMs: AUDIOSOCKET_FRAME_MS };
        return [
          { type: 'start', call: { callId: this.uuid, parameters: {} }, input: this.format, output: this.format },
          { type: 'audio', payload: payload.slice() },
        ];
      }
    }
  }

  encodeAudio(payload: Uint8Array): WireMessage {
    return { binary: encodeFrame(this.audioType, payload) };
  }

  hangup(): WireMessage[] {
    return [{ binary: encodeFrame(AudioSocketKind.hangup) }];
  }
}

export const audiosocket: TelephonyProvider = {
  name: 'audiosocket',
  open: () => new AudioSocketConnection(),
};
