import type { IncomingMessage, ServerResponse } from 'node:http';
import { getCallRecord, recentCallIds, type CallRecord } from '../analytics/call-record.ts';
import { resultKey } from '../analytics/runner.ts';
import type { RecordingStore } from '../analytics/store.ts';
import type { CallSummary } from '../analytics/summary.ts';
import type { PluginFactory } from '../server/types.ts';
import type { Logger } from '../session/logger.ts';
import { reviewAssets } from './bundle.ts';
import { esc } from './html.ts';
import { filterRows, parseFilter, renderListPage, rowOf } from './list.ts';
import { buildReviewModel } from './model.ts';
import { REVIEW_DEFAULTS, type ReviewOptions } from './options.ts';
import { inlineScript, renderCallPage } from './page.ts';
import { waveformOf } from './peaks.ts';
import { authorized, privateHeaders, REVIEW_SECRET_ENV, send } from './security.ts';
import type { ReviewModel, Waveform } from './types.ts';

/** What the review routes serve from and how they are opened. */
export interface ReviewRoutesOptions extends ReviewOptions {
  /** Where `CallAnalytics` stored the calls (recordings, records, analytics results). */
  store: RecordingStore;
  /** The secret of the pages (HTTP Basic password or bearer token). @default process.env.HIWAR_REVIEW_SECRET (unset: closed) */
  secret?: string;
}

/**
 * The call review pages of the recorded calls, as a server plugin: `GET /calls` (the list) and
 * `GET /calls/<id>` (one call) for browsers (`Accept: text/html`), with `/calls/<id>/recording.wav`
 * and `/calls/<id>/review.json`. Mount it before the outbound calls' routes: requests it does not
 * take (the outbound JSON API, `POST /calls`, `/calls/live`) go on to the next plugin. Closed
 * without a secret, `open` or not: recordings are personal data.
 */
export function reviewRoutes(o: ReviewRoutesOptions): PluginFactory {
  return (ctx) => {
    const opts = { ...REVIEW_DEFAULTS, ...o };
    const secret = o.secret ?? process.env[REVIEW_SECRET_ENV];
    const waveforms = new Map<string, Promise<{ waveform: Waveform; seconds: number }>>();
    return {
      name: 'review',
      async handleRequest(req, res, url) {
        const route = routeOf(req, url);
        if (!route) return false;
        privateHeaders(res);
        if (!authorized(req, res, secret)) {
          ctx.logger.warn({ route: url.pathname }, 'call review refused: missing or wrong secret');
          return true;
        }
        try {
          await serve(route, req, res, url, { ...opts, waveforms, logger: ctx.logger });
        } catch (err) {
          ctx.logger.error({ route: url.pathname, err: (err as Error).message }, 'call review failed');
          if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `could not read the call: ${(err as Error).message}\n`);
          else res.destroy();
        }
        return true;
      },
    };
  };
}

type Route = { kind: 'list' } | { kind: 'page' | 'recording' | 'model'; id: string };

/**
 * The review's share of `/calls…`: GET and HEAD only; the list and a page only for a browser
 * (the outbound API answers JSON on the same paths); `/calls/live` is the live view's.
 */
function routeOf(req: IncomingMessage, url: URL): Route | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  const html = /\btext\/html\b/.test(String(req.headers.accept ?? ''));
  if (url.pathname === '/calls') return html ? { kind: 'list' } : undefined;
  const m = /^\/calls\/([A-Za-z0-9._-]{1,200})(?:\/(recording\.wav|review\.json))?$/.exec(url.pathname);
  if (!m || m[1] === 'live') return undefined;
  const id = m[1]!;
  if (m[2] === 'recording.wav') return { kind: 'recording', id };
  if (m[2] === 'review.json') return { kind: 'model', id };
  return html ? { kind: 'page', id } : undefined;
}

interface Serving extends Required<ReviewOptions> {
  store: RecordingStore;
  waveforms: Map<string, Promise<{ waveform: Waveform; seconds: number }>>;
  logger: Logger;
}

async function serve(route: Route, req: IncomingMessage, res: ServerResponse, url: URL, s: Serving): Promise<void> {
  const head = req.method === 'HEAD';
  if (route.kind === 'list') return list(res, url, s, head);
  const record = await getCallRecord(s.store, route.id);
  if (!record) {
    const jobId = await jobIdOfCall(s.store, route.id, s.listScan);
    if (jobId) return redirect(res, url.pathname.replace(`/calls/${route.id}`, `/calls/${encodeURIComponent(jobId)}`), head);
    send(res, 404, 'text/html; charset=utf-8', `<!doctype html><meta charset="utf-8"><title>404</title><p>No recorded call "${esc(route.id)}". <a href="/calls">All calls</a></p>\n`, head);
    return;
  }
  if (route.kind === 'recording') return recording(req, res, record, s.store, head);
  const model = await modelOf(record, s);
  if (route.kind === 'model') {
    send(res, 200, 'application/json', `${JSON.stringify(model)}\n`, head);
    return;
  }
  const html = await renderCallPage(model, { audioSrc: `/calls/${encodeURIComponent(record.jobId)}/recording.wav`, backLink: '/calls' });
  privateHeaders(res, inlineScript((await reviewAssets()).script));
  send(res, 200, 'text/html; charset=utf-8', html, head);
}

/**
 * The newest recorded call of a call id, where the id is not a job id: a placed call's `out-…`
 * (what `POST /calls` and `hiwar call` print) or a platform's call id. A job id is
 * `<provider>-<call id>-<end ms>` (`jobIdFor`), so the browser opening `/calls/out-…` on the
 * path the outbound API answers gets that call's page, not a 404. Undefined when the store
 * cannot list its calls.
 */
async function jobIdOfCall(store: RecordingStore, callId: string, scan: number): Promise<string | undefined> {
  if (!store.list) return undefined;
  const safe = callId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120);
  const ids = await recentCallIds(store, scan);
  return ids.find((id) => id.slice(id.indexOf('-') + 1, id.lastIndexOf('-')) === safe);
}

function redirect(res: ServerResponse, location: string, head: boolean): void {
  res.setHeader('Location', location);
  send(res, 302, 'text/plain; charset=utf-8', `${location}\n`, head);
}

/** The review model of a stored call, its analytics beside it once the job has summarized it. */
async function modelOf(record: CallRecord, s: Serving): Promise<ReviewModel> {
  let wave = s.waveforms.get(record.jobId);
  if (!wave) {
    wave = s.store.get(record.recording.key).then((wav) => {
      if (!wav) throw new Error(`the recording ${record.recording.key} is not in the store`);
      return waveformOf(wav);
    });
    wave.catch(() => s.waveforms.delete(record.jobId));
    s.waveforms.set(record.jobId, wave);
    // The oldest computed waveform goes first (a Map keeps insertion order).
    while (s.waveforms.size > s.cachedWaveforms) s.waveforms.delete(s.waveforms.keys().next().value!);
  }
  const { waveform, seconds } = await wave;
  const summaryBytes = await s.store.get(resultKey(record.jobId, 'summary'));
  const summary = summaryBytes ? (JSON.parse(Buffer.from(summaryBytes).toString('utf8')) as CallSummary) : undefined;
  const { startClock } = record.report;
  const recordingStart = record.recording.startClock;
  return buildReviewModel({
    report: record.report,
    waveform,
    seconds,
    offsetSeconds: startClock !== undefined && recordingStart !== undefined ? (startClock - recordingStart) / 1000 : 0,
    title: [record.agent, record.call.direction, record.call.from].filter(Boolean).join(' · '),
    outcome: record.outcome,
    endedAt: record.endedAt,
    summary: summary ?? undefined,
  });
}

/** The stored WAV, with single byte ranges (a browser seeks in the audio with them). */
async function recording(req: IncomingMessage, res: ServerResponse, record: CallRecord, store: RecordingStore, head: boolean): Promise<void> {
  const wav = await store.get(record.recording.key);
  if (!wav) {
    send(res, 404, 'text/plain; charset=utf-8', 'the recording is not in the store\n', head);
    return;
  }
  res.setHeader('Accept-Ranges', 'bytes');
  const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
  if (!range || (!range[1] && !range[2])) {
    send(res, 200, 'audio/wav', wav, head);
    return;
  }
  const size = wav.byteLength;
  // "bytes=-N" is the last N bytes; "bytes=A-" runs to the end.
  const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
  const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
  if (start >= size || start > end) {
    res.setHeader('Content-Range', `bytes */${size}`);
    send(res, 416, 'text/plain; charset=utf-8', 'range not satisfiable\n', head);
    return;
  }
  res.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
  send(res, 206, 'audio/wav', wav.subarray(start, end + 1), head);
}

/** The list of recent calls, filtered by the query string. */
async function list(res: ServerResponse, url: URL, s: Serving, head: boolean): Promise<void> {
  let filter;
  try {
    filter = parseFilter(url.searchParams, s.listLimit);
  } catch (err) {
    send(res, 400, 'text/plain; charset=utf-8', `${(err as Error).message}\n`, head);
    return;
  }
  const ids = await recentCallIds(s.store, s.listScan);
  const records: CallRecord[] = [];
  // A few at a time: a long list must not open a thousand files at once.
  for (let i = 0; i < ids.length; i += 16) {
    const batch = await Promise.all(
      ids.slice(i, i + 16).map((id) =>
        getCallRecord(s.store, id).catch((err: Error) => {
          s.logger.warn({ call: id, err: err.message }, 'call review: an unreadable call record is left out of the list');
          return undefined;
        }),
      ),
    );
    for (const r of batch) if (r) records.push(r);
  }
  const rows = records.map(rowOf);
  const { css } = await reviewAssets();
  send(res, 200, 'text/html; charset=utf-8', renderListPage(rows, filterRows(rows, filter), filter, css), head);
}
