import busboy from 'busboy';
import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { badRequest, type HttpError } from './errors.ts';

export interface UploadLimits {
  /** Largest body accepted (bytes), enforced while reading. */
  maxBytes: number;
  tooLarge: () => HttpError;
  /** Abort a body that sends nothing for this long. */
  idleMs: number;
  timedOut: () => HttpError;
}

/** Where each uploaded file was written, so decoders read it from disk instead of memory. */
const diskPaths = new WeakMap<Blob, string>();

/** The file behind an uploaded Blob, when it came through `receiveForm`. */
export const diskPathOf = (blob: Blob): string | undefined => diskPaths.get(blob);

/** The limit/timeout error thrown while a body was being read: the connection must close. */
export const closing = (err: HttpError) => Object.assign(err, { closeConnection: true });

/**
 * Reads a multipart body with busboy, streaming each file to a temporary folder: the process
 * never holds an upload in memory, and the size limit stops reading as soon as it is passed.
 * Files come back as disk-backed Blobs inside an ordinary FormData, so routes read fields as
 * before. `cleanup` removes the folder (call it when the response ends).
 */
export async function receiveForm(req: IncomingMessage, limits: UploadLimits): Promise<{ form: FormData; cleanup: () => Promise<void> }> {
  const type = String(req.headers['content-type'] ?? '');
  if (!type.startsWith('multipart/form-data')) throw badRequest('Request must be multipart/form-data');
  if (Number(req.headers['content-length'] ?? 0) > limits.maxBytes) {
    req.resume();
    throw closing(limits.tooLarge());
  }
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-upload-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    return { form: await parse(req, type, dir, limits), cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

function parse(req: IncomingMessage, type: string, dir: string, limits: UploadLimits): Promise<FormData> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: { ...req.headers, 'content-type': type }, limits: { fieldSize: 1024 * 1024, fields: 200, files: 8 } });
    } catch {
      return reject(badRequest('Malformed multipart body'));
    }
    const form = new FormData();
    const writes: Promise<void>[] = [];
    let received = 0;
    let settled = false;
    let idle: NodeJS.Timeout | undefined;
    const fail = (err: HttpError) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      req.unpipe(bb);
      req.resume(); // drain what is in flight; the connection closes after the answer
      reject(closing(err));
    };
    const touch = () => {
      clearTimeout(idle);
      // Once answered, the rest of the body only drains: no timer may hold the process.
      if (!settled) idle = setTimeout(() => fail(limits.timedOut()), limits.idleMs);
    };
    touch();
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      touch();
      if (received > limits.maxBytes) fail(limits.tooLarge());
    });
    req.on('aborted', () => fail(badRequest('Request body ended early')));
    bb.on('field', (name, value) => form.append(name, value));
    let n = 0;
    bb.on('file', (name, stream, info) => {
      const path = join(dir, `part-${n++}`);
      writes.push(
        pipeline(stream, createWriteStream(path)).then(async () => {
          const file = new File([await openAsBlob(path)], info.filename || 'upload', { type: info.mimeType });
          diskPaths.set(file, path);
          form.append(name, file);
        }),
      );
    });
    bb.on('error', () => fail(badRequest('Malformed multipart body')));
    bb.on('close', () => {
      Promise.all(writes).then(
        () => {
          if (settled) return;
          settled = true;
          clearTimeout(idle);
          resolve(form);
        },
        () => fail(badRequest('Malformed multipart body')),
      );
    });
    req.pipe(bb);
  });
}
