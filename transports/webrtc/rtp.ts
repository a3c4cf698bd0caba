/**
 * The RTP fixed header (RFC 3550 §5.1), read and written by hand: the agent's side only needs the
 * payload of an incoming packet and a 12-byte header on an outgoing one, on the hot path of every
 * call, and the npm RTP libraries either pull in a whole WebRTC stack or a newer @types/node.
 */

export interface RtpHeader {
  payloadType: number;
  sequenceNumber: number;
  timestamp: number;
  ssrc: number;
  marker: boolean;
}

export interface RtpPacket extends RtpHeader {
  payload: Buffer;
}

/** Reads an RTP packet; skips CSRCs, the header extension and padding. Throws on a malformed one. */
export function parseRtp(buf: Buffer): RtpPacket {
  if (buf.length < 12) throw new Error(`RTP packet too short: ${buf.length} bytes`);
  const b0 = buf[0]!;
  if (b0 >> 6 !== 2) throw new Error(`not RTP version 2 (first byte ${b0})`);
  const csrcCount = b0 & 0x0f;
  let offset = 12 + 4 * csrcCount;
  if (b0 & 0x10) {
    if (buf.length < offset + 4) throw new Error('RTP header extension cut short');
    offset += 4 + 4 * buf.readUInt16BE(offset + 2);
  }
  let end = buf.length;
  if (b0 & 0x20) end -= buf[buf.length - 1]!;
  if (offset > end) throw new Error('RTP header longer than the packet');
  const b1 = buf[1]!;
  return {
    marker: (b1 & 0x80) !== 0,
    payloadType: b1 & 0x7f,
    sequenceNumber: buf.readUInt16BE(2),
    timestamp: buf.readUInt32BE(4),
    ssrc: buf.readUInt32BE(8),
    payload: buf.subarray(offset, end),
  };
}

/** Writes a packet with the 12-byte fixed header (no CSRC, no extension, no padding). */
export function buildRtp(h: RtpHeader, payload: Uint8Array): Buffer {
  const buf = Buffer.allocUnsafe(12 + payload.length);
  buf[0] = 0x80;
  buf[1] = (h.marker ? 0x80 : 0) | (h.payloadType & 0x7f);
  buf.writeUInt16BE(h.sequenceNumber & 0xffff, 2);
  buf.writeUInt32BE(h.timestamp >>> 0, 4);
  buf.writeUInt32BE(h.ssrc >>> 0, 8);
  buf.set(payload, 12);
  return buf;
}
