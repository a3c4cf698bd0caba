import alawmulaw from 'alawmulaw';

/** G.711 codecs of telephony media streams (8 kHz, one byte a sample). */
export const mulaw = {
  encode: (pcm: Int16Array): Uint8Array => alawmulaw.mulaw.encode(pcm),
  decode: (bytes: Uint8Array): Int16Array => alawmulaw.mulaw.decode(bytes),
};

export const alaw = {
  encode: (pcm: Int16Array): Uint8Array => alawmulaw.alaw.encode(pcm),
  decode: (bytes: Uint8Array): Int16Array => alawmulaw.alaw.decode(bytes),
};
