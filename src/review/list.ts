import type { CallRecord } from '../analytics/call-record.ts';
import { duration, esc } from './html.ts';
import { latencyOf } from './model.ts';

/** One line of the list of calls. */
export interface CallRow {
  id: string;
  endedAt: string;
  agent: string;
  /** How the call ended for the server (completed, caller-hangup…), else the session's reason. */
  outcome: string;
  durationSeconds: number;
  amd?: string;
  worstLatencyMs?: number;
  from?: string;
  to?: string;
  direction?: string;
}

/** The list's filters, from the query string (`?agent=&outcome=&amd=&slowerThan=&limit=`). */
export interface CallFilter {
  agent?: string;
  outcome?: string;
  amd?: string;
  /** Only calls whose slowest reply took at least this many ms. */
  slowerThan?: number;
  limit: number;
}

/** A stored call as a line of the list. */
export function rowOf(r: CallRecord): CallRow {
  const worst = Math.max(-Infinity, ...r.report.turns.flatMap((t) => (t.metrics ? [latencyOf(t.metrics)?.totalMs ?? -Infinity] : [])));
  return {
    id: r.jobId,
    endedAt: r.endedAt,
    agent: r.agent,
    outcome: r.outcome ?? r.report.ended,
    durationSeconds: r.report.durationSeconds,
    ...(r.report.amd ? { amd: r.report.amd.class } : {}),
    ...(Number.isFinite(worst) ? { worstLatencyMs: worst } : {}),
    ...(r.call.from ? { from: r.call.from } : {}),
    ...(r.call.to ? { to: r.call.to } : {}),
    ...(r.call.direction ? { direction: r.call.direction } : {}),
  };
}

/** The filters a query string asks for; a bad number is a clear error. */
export function parseFilter(q: URLSearchParams, maxLimit: number): CallFilter {
  const text = (k: string) => q.get(k)?.trim() || undefined;
  const num = (k: string, min: number, max: number) => {
    const v = text(k);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) throw new RangeError(`${k} must be a number from ${min} to ${max}, got "${v}"`);
    return n;
  };
  return { agent: text('agent'), outcome: text('outcome'), amd: text('amd'), slowerThan: num('slowerThan', 0, 3_600_000), limit: num('limit', 1, maxLimit) ?? maxLimit };
}

/** The rows a filter keeps, in order, at most `limit`. */
export function filterRows(rows: CallRow[], f: CallFilter): CallRow[] {
  return rows
    .filter((r) => (!f.agent || r.agent === f.agent) && (!f.outcome || r.outcome === f.outcome) && (!f.amd || r.amd === f.amd) && (f.slowerThan === undefined || (r.worstLatencyMs ?? -1) >= f.slowerThan))
    .slice(0, f.limit);
}

/** The list page: a filter form (a plain GET form: no script needed) and one table row per call. */
export function renderListPage(all: CallRow[], shown: CallRow[], f: CallFilter, css: string): string {
  const choices = (name: keyof CallRow, current: string | undefined) => {
    const values = [...new Set(all.map((r) => r[name]).filter((v): v is string => typeof v === 'string'))].sort();
    return `<select name="${name}"><option value="">الكل</option>${values.map((v) => `<option${v === current ? ' selected' : ''}>${esc(v)}</option>`).join('')}</select>`;
  };
  const rows = shown
    .map(
      (r) => `<tr><td><a href="/calls/${encodeURIComponent(r.id)}" dir="ltr">${esc(r.endedAt.replace('T', ' ').slice(0, 19))}</a></td><td>${esc(r.agent)}</td><td dir="ltr">${esc(r.outcome)}</td><td dir="ltr">${duration(r.durationSeconds)}</td><td dir="ltr">${esc(r.amd ?? '–')}</td><td dir="ltr">${r.worstLatencyMs === undefined ? '–' : `${Math.round(r.worstLatencyMs)} ms`}</td><td class="wide" dir="ltr">${esc([r.direction, r.from, r.to && `→ ${r.to}`].filter(Boolean).join(' '))}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="ar" dir="rtl">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>المكالمات</title><link rel="icon" href="data:,"><style>${css}</style></head>
<body><header><h1>المكالمات المسجلة</h1><p class="note">${shown.length} of ${all.length} recent calls</p></header>
<main>
<form class="filters" method="get" action="/calls">
<label>الوكيل ${choices('agent', f.agent)}</label>
<label>النهاية ${choices('outcome', f.outcome)}</label>
<label>الرد الآلي ${choices('amd', f.amd)}</label>
<label>أبطأ رد ≥ (ms) <input type="number" name="slowerThan" min="0" value="${f.slowerThan ?? ''}" dir="ltr"></label>
<button type="submit">تصفية</button>
</form>
<table class="calls" id="calls"><thead><tr><th>الوقت</th><th>الوكيل</th><th>النهاية</th><th>المدة</th><th>الرد الآلي</th><th>أبطأ رد</th><th class="wide">الخط</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="7">لا مكالمات</td></tr>'}
</tbody></table>
</main></body></html>
`;
}
