import type { Upload } from '../types.ts';

export function toBlob(upload: Upload): { blob: Blob; filename: string } {
  if (upload instanceof Blob) {
    const filename = 'name' in upload && typeof upload.name === 'string' ? upload.name : 'audio.wav';
    return { blob: upload, filename };
  }
  const blob = new Blob([upload.data as Uint8Array<ArrayBuffer>], { type: upload.contentType ?? 'application/octet-stream' });
  return { blob, filename: upload.filename };
}

type Field = string | number | boolean | string[] | Upload | undefined;

/** A multipart body from plain fields; arrays become comma lists, undefined fields are left out. */
export function formData(fields: Record<string, Field>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) form.append(name, value.join(','));
    else if (typeof value === 'object') {
      const { blob, filename } = toBlob(value);
      form.append(name, blob, filename);
    } else form.append(name, String(value));
  }
  return form;
}

/** Some endpoints wrap results as {statusCode, data, message}: return the data either way. */
export function unwrap<T>(body: unknown): T {
  if (body && typeof body === 'object' && 'data' in body && ('statusCode' in body || 'message' in body)) {
    return (body as { data: T }).data;
  }
  return body as T;
}
