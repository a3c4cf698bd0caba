/** A WebSocket close frame carries at most 123 bytes of reason; `ws` throws on a longer one. */
export const MAX_CLOSE_REASON_BYTES = 123;

/** The reason cut to fit a close frame, on a character boundary (Arabic letters are two bytes). */
export function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= MAX_CLOSE_REASON_BYTES) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > MAX_CLOSE_REASON_BYTES - 3) break;
    out += ch;
    bytes += n;
  }
  return `${out}...`;
}
