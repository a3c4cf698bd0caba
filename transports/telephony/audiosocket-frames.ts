/**
 * Asterisk AudioSocket framing (res_audiosocket): every message is `[type:1][length:2 BE][payload]`.
 * Hand-written because the format is three bytes of header and no npm package implements the
 * server side; the pure parser here is fed whatever the TCP socket delivers, split anywhere.
 */

export const AudioSocketKind = {
  hangup: 0x00,
  uuid: 0x01,
  dtmf: 0x03,
  /** Signed linear 16-bit, 8 kHz, mono: the classic AudioSocket audio frame. */
  slin8: 0x10,
  error: 0xff,
} as const;

/**
 * Audio frame types by sample rate: 0x10 is 8 kHz everywhere; Asterisk 23 added the others
 * (slin12 … slin192) for channels that carry wider audio.
 */
export const AUDIO_TYPES: ReadonlyMap<number, number> = new Map([
  [0x10, 8000],
  [0x11, 12000],
  [0x12, 16000],
  [0x13, 24000],
  [0x14, 32000],
  [0x15, 44100],
  [0x16, 48000],
  [0x17, 96000],
  [0x18, 192000],
]);

const HEADER = 3;
const MAX_PAYLOAD = 0xffff;

export function encodeFrame(type: number, payload: Uint8Array = new Uint8Array(0)): Buffer {
  if (payload.byteLength > MAX_PAYLOAD) throw new Error(`AudioSocket payload of ${payload.byteLength} bytes exceeds ${MAX_PAYLOAD}`);
  const out = Buffer.alloc(HEADER + payload.byteLength);
  out[0] = type;
  out.writeUInt16BE(payload.byteLength, 1);
  out.set(payload, HEADER);
  return out;
}

/** Type and payload of one whole frame (header included). */
export const frameType = (frame: Uint8Array): number => frame[0]!;
export const framePayload = (frame: Uint8Array): Uint8Array => frame.subarray(HEADER);

/**
 * Cuts the TCP byte stream into whole frames (header included); a frame split across chunks
 * waits for its tail.
 */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const frames: Buffer[] = [];
    let at = 0;
    while (this.pending.length - at >= HEADER) {
      const end = at + HEADER + this.pending.readUInt16BE(at + 1);
      if (this.pending.length < end) break;
      // Copied: the socket may reuse its chunk memory, and frames outlive this call.
      frames.push(Buffer.from(this.pending.subarray(at, end)));
      at = end;
    }
    this.pending = this.pending.subarray(at);
    return frames;
  }

  /** Bytes of an incomplete frame still waiting. */
  get buffered(): number {
    return this.pending.length;
  }
}

/** The 16-byte call UUID of a 0x01 frame in its usual text form. */
export function uuidFromBytes(payload: Uint8Array): string {
  if (payload.byteLength !== 16) throw new Error(`AudioSocket UUID frame has ${payload.byteLength} bytes, expected 16`);
  const hex = Buffer.from(payload).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function uuidToBytes(uuid: string): Buffer {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`not a UUID: ${uuid}`);
  return Buffer.from(hex, 'hex');
}

/** Error codes of a 0xff frame, as res_audiosocket sends them. */
export const ERROR_CODES: Record<number, string> = {
  0x00: 'none',
  0x01: 'hangup',
  0x02: 'frame forwarding error',
  0x04: 'memory error',
};
