import type { Upload } from '../types.ts';

/**
 * The file name an upload goes up with. The service picks its decoder from the name's
 * extension (docs/service-behaviour.md#file-uploads-are-decoded-by-their-name), so the
 * extension follows the bytes: a nameless upload gets `audio.<detected>`, and a name whose
 * extension contradicts the content gets the detected one.
 * Content that cannot be recognized keeps the name it was given.
 */

/** Extensions that name the same container: a name using any of them matches. */
const SAME = [
  ['mp4', 'm4a', 'm4b', 'm4v', 'mov', '3gp', '3g2'],
  ['ogg', 'oga', 'ogx', 'opus', 'spx'],
  ['webm', 'mkv', 'mka'],
  ['wav', 'wave'],
  ['aif', 'aiff'],
];

/** Extensions to send for a detected type, where file-type's own is not the usual one. */
const PREFERRED: Record<string, string> = { ogx: 'ogg', opus: 'ogg', qt: 'mov' };

const FROM_MIME: Record<string, string> = {
  'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3', 'audio/ogg': 'ogg',
  'audio/opus': 'ogg', 'audio/webm': 'webm', 'video/webm': 'webm', 'audio/mp4': 'm4a', 'video/mp4': 'mp4', 'audio/flac': 'flac',
  'audio/aac': 'aac', 'audio/amr': 'amr',
};

/** Enough of the head of a file for every format file-type recognizes. */
const SNIFF_BYTES = 4100;

const family = (ext: string) => SAME.find((g) => g.includes(ext)) ?? [ext];

/**
 * file-type, loaded by the first upload that needs it: about 30 modules that every process
 * importing hiwar loaded before, uploads or not.
 */
let sniffer: Promise<typeof import('file-type')> | undefined;

export async function detectExtension(head: Uint8Array, mime?: string): Promise<string | undefined> {
  const { fileTypeFromBuffer } = await (sniffer ??= import('file-type'));
  const found = await fileTypeFromBuffer(head).catch(() => undefined);
  if (found) return PREFERRED[found.ext] ?? found.ext;
  return mime ? FROM_MIME[mime.split(';')[0]!.trim().toLowerCase()] : undefined;
}

/** A name for `given` (possibly absent) whose extension agrees with the detected content. */
export function nameFor(given: string | undefined, detected: string | undefined): string {
  const base = given?.trim() || 'audio';
  if (!detected) return given?.trim() || 'audio.wav';
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  if (ext && family(detected).includes(ext)) return base;
  const stem = ext && /^(?=.*[a-z])[a-z0-9]{2,5}$/.test(ext) ? base.slice(0, dot) : base;
  return `${stem}.${detected}`;
}

/** The upload as a Blob and the name it is sent with. */
export async function namedUpload(upload: Upload): Promise<{ blob: Blob; filename: string }> {
  if (upload instanceof Blob) {
    const given = 'name' in upload && typeof upload.name === 'string' && upload.name ? upload.name : undefined;
    const head = new Uint8Array(await upload.slice(0, SNIFF_BYTES).arrayBuffer());
    return { blob: upload, filename: nameFor(given, await detectExtension(head, upload.type)) };
  }
  const bytes = upload.data instanceof Uint8Array ? upload.data : new Uint8Array(upload.data);
  const blob = new Blob([bytes as Uint8Array<ArrayBuffer>], { type: upload.contentType ?? 'application/octet-stream' });
  return { blob, filename: nameFor(upload.filename, await detectExtension(bytes.subarray(0, SNIFF_BYTES), upload.contentType)) };
}
