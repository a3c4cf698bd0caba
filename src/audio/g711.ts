import alawmulaw from 'alawmulaw';

/**
 * G.711 codecs of telephony media streams (8 kHz, one byte a sample).
 *
 * The codec is alawmulaw's; what is hand-written is a cache of it. A telephony call decodes 50
 * frames a second and encodes as many, and the library computes every sample with a function
 * call and bit twiddling. Both directions are finite maps (256 bytes → samples, 65 536 samples →
 * bytes), so each law is tabulated once from the library's own per-sample functions (64 KB +
 * 512 B per law, built on first use) and a frame is then one table look-up per sample.
 */
interface Law {
  encodeSample(sample: number): number;
  decodeSample(byte: number): number;
}

export interface G711Codec {
  /** Into `out` when given (its length must be the sample count), else into a new array. */
  encode(pcm: Int16Array, out?: Uint8Array): Uint8Array;
  /** Into `out` when given (its length must be the byte count), else into a new array. */
  decode(bytes: Uint8Array, out?: Int16Array): Int16Array;
}

function tabulated(law: Law): G711Codec {
  let enc: Uint8Array | undefined;
  let dec: Int16Array | undefined;
  const encodeTable = () => {
    if (!enc) {
      // Indexed by the sample's 16 bits as unsigned: sample & 0xffff.
      enc = new Uint8Array(65536);
      for (let i = 0; i < 65536; i++) enc[i] = law.encodeSample(i < 32768 ? i : i - 65536);
    }
    return enc;
  };
  const decodeTable = () => {
    if (!dec) {
      dec = new Int16Array(256);
      for (let b = 0; b < 256; b++) dec[b] = law.decodeSample(b);
    }
    return dec;
  };
  return {
    encode(pcm, into) {
      const t = encodeTable();
      const out = into ?? new Uint8Array(pcm.length);
      for (let i = 0; i < pcm.length; i++) out[i] = t[pcm[i]! & 0xffff]!;
      return out;
    },
    decode(bytes, into) {
      const t = decodeTable();
      const out = into ?? new Int16Array(bytes.length);
      for (let i = 0; i < bytes.length; i++) out[i] = t[bytes[i]!]!;
      return out;
    },
  };
}

/** G.711 mu-law (PCMU) encoder and decoder, table-driven. */
export const mulaw: G711Codec = tabulated(alawmulaw.mulaw);
/** G.711 A-law (PCMA) encoder and decoder, table-driven. */
export const alaw: G711Codec = tabulated(alawmulaw.alaw);
