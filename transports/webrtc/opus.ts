import { requireOptional } from '../../src/optional.ts';

/**
 * An Opus encoder/decoder pair: the part of @discordjs/opus's `OpusEncoder` hiwar uses, named
 * here so the package's types do not need the optional native module installed.
 */
export interface OpusCodec {
  encode(pcm: Buffer): Buffer;
  /** Opus packet → 16-bit little-endian PCM. */
  decode(packet: Buffer): Buffer;
  applyEncoderCTL(ctl: number, value: number): void;
  setBitrate(bitrate: number): void;
}

interface OpusBinding {
  OpusEncoder: new (rate: number, channels: number) => OpusCodec;
}

/** A codec from @discordjs/opus (CommonJS, native), or one line saying WebRTC needs it. */
export function createOpusCodec(rate: number, channels: number): OpusCodec {
  return new (requireOptional<OpusBinding>('@discordjs/opus').OpusEncoder)(rate, channels);
}
