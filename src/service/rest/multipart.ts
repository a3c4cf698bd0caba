import type { Upload } from '../types.ts';
import { namedUpload } from './upload-name.ts';

type Field = string | number | boolean | string[] | Upload | undefined;

/**
 * A multipart body from plain fields; arrays become comma lists, undefined fields are left out,
 * files go up with a name that matches their content.
 */
export async function formData(fields: Record<string, Field>): Promise<FormData> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) form.append(name, value.join(','));
    else if (typeof value === 'object') {
      const { blob, filename } = await namedUpload(value);
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
