import type { ServiceConfig } from '../config.ts';
import { NotFoundError, ProtocolError } from '../errors.ts';
import { read, request, type CallOptions } from '../http.ts';
import { sse } from '../streams.ts';
import type { DenoiseJob, DenoiseProgressEvent, DenoiseRecord, Upload } from '../types.ts';
import { checkDenoiseSize, checkFile, checkPaging, required } from '../validate.ts';
import { formData, unwrap } from './multipart.ts';

/** Uploads audio or video (≤ 200 MB, ≤ 15 min) and queues a denoise job. */
export async function denoise(cfg: ServiceConfig, audio: Upload, opts: CallOptions = {}): Promise<DenoiseJob> {
  const ep = 'POST /denoise';
  checkFile(audio, 'audio', ep);
  checkDenoiseSize(audio, ep);
  return request(cfg, { method: 'POST', path: '/denoise', form: await formData({ audio }) }, opts, async (res) =>
    unwrap<DenoiseJob>(await read.json(res)),
  );
}

/** Denoise records, most recent first; without limit, all of them. */
export async function listDenoise(
  cfg: ServiceConfig,
  page: { offset?: number; limit?: number } = {},
  opts: CallOptions = {},
): Promise<DenoiseRecord[]> {
  checkPaging(page.offset, page.limit, 'GET /denoise');
  return request(
    cfg,
    { method: 'GET', path: '/denoise', query: { offset: page.offset, limit: page.limit }, idempotent: true },
    opts,
    async (res) => {
      const body = unwrap<unknown>(await read.json(res));
      if (!Array.isArray(body)) throw new ProtocolError('expected an array of denoise records');
      return body as DenoiseRecord[];
    },
  );
}

/**
 * Progress of a denoise job as typed events, ending after `done` or `error`. A job that the
 * service does not know raises NotFoundError (its 404 has a bare {message} body). A stream that
 * stops before a terminal event raises ProtocolError, so a caller never waits for nothing.
 */
export async function denoiseProgress(
  cfg: ServiceConfig,
  denoiseId: string,
  opts: CallOptions = {},
): Promise<AsyncIterable<DenoiseProgressEvent>> {
  required(denoiseId, 'denoiseId', 'GET /denoise/{id}/progress');
  const res = await request(
    cfg,
    {
      method: 'GET',
      path: `/denoise/${encodeURIComponent(denoiseId)}/progress`,
      accept: 'text/event-stream',
      idempotent: true,
      stream: true,
    },
    opts,
    read.raw,
  );
  return (async function* () {
    for await (const m of sse(res.body)) {
      let event: DenoiseProgressEvent;
      try {
        event = JSON.parse(m.data) as DenoiseProgressEvent;
      } catch {
        throw new ProtocolError(`malformed progress event: ${JSON.stringify(m.data.slice(0, 80))}`);
      }
      if (!event || typeof event.stage !== 'string') throw new ProtocolError('progress event without a stage');
      yield event;
      if (event.stage === 'done' || event.stage === 'error') return;
    }
    throw new ProtocolError('progress stream closed before a done or error event');
  })();
}

/** Waits for a denoise job to finish; resolves with the final audio URL. */
export async function waitForDenoise(
  cfg: ServiceConfig,
  denoiseId: string,
  onProgress?: (e: DenoiseProgressEvent) => void,
  opts: CallOptions = {},
): Promise<string> {
  for await (const e of await denoiseProgress(cfg, denoiseId, opts)) {
    onProgress?.(e);
    if (e.stage === 'done') return e.url;
    if (e.stage === 'error') throw new ProtocolError(`denoise job failed: ${e.message}`);
  }
  throw new NotFoundError({ status: 404, errorMessage: 'denoise job ended without result' });
}
