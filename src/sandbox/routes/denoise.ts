import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { encodeWav } from '../../audio/wav.ts';
import { denoisePcm } from '../engines/rnnoise.ts';
import { HttpError, badRequest } from '../http/errors.ts';
import type { Route } from '../http/server.ts';
import { filesBase } from '../files.ts';
import { decodeAudio } from '../media.ts';
import { audioCost } from '../pricing.ts';
import type { SandboxState } from '../state.ts';

const MAX_BYTES = 200 * 1024 * 1024;
const MAX_SECONDS = 15 * 60;
const INACTIVITY_MS = 15 * 60 * 1000;

/**
 * Progress events are the sandbox's own minimal shapes (the spec fixes only `stage`):
 * {stage:"processing", progress:0..100}, {stage:"done", url, denoiseId}, {stage:"error", message}.
 */
export type DenoiseEvent = { stage: 'processing'; progress: number } | { stage: 'done'; url: string; denoiseId: string } | { stage: 'error'; message: string };

export interface DenoiseJob {
  denoiseId: string;
  jobId: string;
  owner: string;
  filename: string;
  createdAt: string;
  duration: number;
  last: DenoiseEvent;
  listeners: Set<(e: DenoiseEvent) => void>;
}

const jobsOf = new WeakMap<SandboxState, Map<string, DenoiseJob>>();
const jobs = (state: SandboxState) => {
  let m = jobsOf.get(state);
  if (!m) jobsOf.set(state, (m = new Map()));
  return m;
};

function emit(job: DenoiseJob, e: DenoiseEvent): void {
  job.last = e;
  for (const l of job.listeners) l(e);
}

async function run(state: SandboxState, job: DenoiseJob, samples: Int16Array, rate: number, fileBase: string): Promise<void> {
  try {
    const clean = await denoisePcm(samples, rate, (f) => emit(job, { stage: 'processing', progress: Math.round(f * 100) }));
    const name = `denoise/${job.denoiseId}.wav`;
    state.files.set(name, { bytes: encodeWav(clean, rate), contentType: 'audio/wav' });
    emit(job, { stage: 'done', url: state.signer.sign(fileBase, name), denoiseId: job.denoiseId });
  } catch (err) {
    emit(job, { stage: 'error', message: `denoise failed: ${(err as Error).message}` });
  }
}

const terminal = (e: DenoiseEvent) => e.stage === 'done' || e.stage === 'error';

function stream(res: ServerResponse, job: DenoiseJob): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const write = (e: DenoiseEvent) => res.write(`data: ${JSON.stringify(e)}\n\n`);
  write(job.last);
  if (terminal(job.last)) return void res.end();
  let idle = setTimeout(() => res.end(), INACTIVITY_MS);
  const listener = (e: DenoiseEvent) => {
    clearTimeout(idle);
    write(e);
    if (terminal(e)) return done();
    idle = setTimeout(() => res.end(), INACTIVITY_MS);
  };
  const done = () => {
    clearTimeout(idle);
    job.listeners.delete(listener);
    res.end();
  };
  job.listeners.add(listener);
  res.on('close', done);
}

export const denoiseRoutes: Route[] = [
  {
    method: 'POST',
    pattern: /^\/denoise$/,
    endpoint: '/denoise',
    bodyLimit: MAX_BYTES + 256 * 1024,
    tooLarge: () => badRequest('File too large: the maximum size is 200 MB'),
    handler: async (ctx) => {
      const form = await ctx.form();
      const file = form.get('audio');
      if (!(file instanceof Blob)) throw badRequest('audio is required and must be a file');
      if (file.size > MAX_BYTES) throw badRequest('File too large: the maximum size is 200 MB');
      const audio = await decodeAudio(file, 16000, {
        seconds: MAX_SECONDS,
        message: 'Audio too long: the maximum duration is 15 minutes',
      });
      ctx.charge(audioCost(audio.duration));
      const denoiseId = randomUUID();
      const job: DenoiseJob = {
        denoiseId,
        jobId: `job-${denoiseId.slice(0, 8)}`,
        owner: ctx.key.spec.key,
        filename: (file as File).name ?? 'audio',
        createdAt: new Date().toISOString(),
        duration: Math.round(audio.duration * 1000) / 1000,
        last: { stage: 'processing', progress: 0 },
        listeners: new Set(),
      };
      jobs(ctx.state).set(denoiseId, job);
      void run(ctx.state, job, audio.samples, audio.sampleRate, filesBase(ctx.base));
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({ jobId: job.jobId, denoiseId }));
    },
  },
  {
    method: 'GET',
    pattern: /^\/denoise$/,
    endpoint: '/denoise',
    handler: (ctx) => {
      const intParam = (name: string, min: number): number | undefined => {
        const raw = ctx.url.searchParams.get(name);
        if (raw === null) return undefined;
        const n = Number(raw);
        if (!Number.isInteger(n) || n < min) throw badRequest(`${name} must be an integer of at least ${min}`);
        return n;
      };
      const offset = intParam('offset', 0) ?? 0;
      const limit = intParam('limit', 1);
      // Jobs are kept in creation order; most recent first.
      const mine = [...jobs(ctx.state).values()].filter((j) => j.owner === ctx.key.spec.key).reverse();
      const page = mine.slice(offset, limit === undefined ? undefined : offset + limit);
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify(page.map((j) => ({
        denoiseId: j.denoiseId,
        jobId: j.jobId,
        status: j.last.stage,
        // Re-signed on every listing: a URL handed out earlier may have expired.
        url: j.last.stage === 'done' ? ctx.state.signer.sign(filesBase(ctx.base), `denoise/${j.denoiseId}.wav`) : null,
        original_filename: j.filename,
        duration: j.duration,
        createdAt: j.createdAt,
      }))));
    },
  },
  {
    method: 'GET',
    pattern: /^\/denoise\/([^/]+)\/progress$/,
    endpoint: '/denoise',
    handler: (ctx) => {
      const job = jobs(ctx.state).get(ctx.params[0]!);
      if (!job || job.owner !== ctx.key.spec.key) throw new HttpError(404, 40401, 'Denoise job not found', true);
      stream(ctx.res, job);
    },
  },
];
