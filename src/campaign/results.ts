import { appendFile, stat } from 'node:fs/promises';
import { postWebhook, type WebhookOptions } from '../analytics/webhook.ts';
import type { AttemptRecord, ContactState, NotPlaced } from './types.ts';

/** One attempt's result as it is streamed (a CSV row, a webhook body). */
export interface CampaignResult {
  campaignId: string;
  /** `<campaign>:<index>:<attempt>`: a receiver drops a delivery it has seen. */
  dialId: string;
  index: number;
  number: string;
  line?: number;
  attempt: number;
  /** The attempt's outcome, or `do-not-call` / `cancelled` for a contact never dialled. */
  outcome: string;
  /** Whether the contact is finished (no retry follows). */
  final: boolean;
  amd?: string;
  durationS?: number;
  transcript?: string;
  toolResults?: Record<string, unknown>;
  error?: string;
  /** Set when nothing was dialled for this attempt, and why (`NotPlaced`). */
  notPlaced?: NotPlaced;
  startedAt?: string;
  endedAt?: string;
  /** When the retry may be dialled, if one follows. */
  retryAt?: string;
  variables: Record<string, string>;
}

/** Where results go as they happen. */
export interface ResultSink {
  /** Writes one attempt's result; a rejection leaves it unstreamed, to be sent again. */
  write(r: CampaignResult): Promise<void>;
}

/** The result of a contact's last attempt (or its skip), from its record. */
export function resultOf(campaignId: string, s: ContactState, toIso: (ms: number) => string): CampaignResult {
  const a: AttemptRecord | undefined = s.attempts.at(-1);
  const outcome = s.status === 'do-not-call' || s.status === 'cancelled' ? s.status : (a?.outcome ?? s.status);
  return {
    campaignId,
    dialId: `${campaignId}:${s.index}:${a?.attempt ?? 0}`,
    index: s.index,
    number: s.contact.number,
    ...(s.contact.line ? { line: s.contact.line } : {}),
    attempt: a?.attempt ?? 0,
    outcome,
    final: s.status !== 'pending',
    ...(a?.amd ? { amd: a.amd } : {}),
    ...(a?.durationS !== undefined ? { durationS: a.durationS } : {}),
    ...(a?.transcript ? { transcript: a.transcript } : {}),
    ...(a?.toolResults ? { toolResults: a.toolResults } : {}),
    ...(a?.error ? { error: a.error } : {}),
    ...(a?.notPlaced ? { notPlaced: a.notPlaced } : {}),
    ...(a ? { startedAt: toIso(a.startedAt) } : {}),
    ...(a?.endedAt !== undefined ? { endedAt: toIso(a.endedAt) } : {}),
    ...(s.status === 'pending' && s.notBefore ? { retryAt: toIso(s.notBefore) } : {}),
    variables: s.contact.variables,
  };
}

/** The CSV columns of results, in order. */
export const RESULT_COLUMNS = ['campaign', 'line', 'number', 'attempt', 'outcome', 'final', 'amd', 'duration_s', 'started_at', 'ended_at', 'retry_at', 'error', 'tool_results', 'transcript'] as const;

/** One result as a CSV row (quoted where needed). */
export function csvRow(r: CampaignResult): string {
  const cells = [r.campaignId, r.line ?? '', r.number, r.attempt, r.outcome, r.final, r.amd ?? '', r.durationS ?? '', r.startedAt ?? '', r.endedAt ?? '', r.retryAt ?? '', r.error ?? '', r.toolResults ? JSON.stringify(r.toolResults) : '', r.transcript ?? ''];
  return cells.map((c) => csvCell(String(c))).join(',');
}

/** Every contact's last result as a CSV text (the header, then a row each). */
export function resultsCsv(campaignId: string, states: ContactState[]): string {
  return `${RESULT_COLUMNS.join(',')}\n${states.map((s) => `${csvRow(resultOf(campaignId, s, (ms) => new Date(ms).toISOString()))}\n`).join('')}`;
}

/** A CSV field, quoted when it holds a comma, a quote or a line break; a leading = + - @ is defused for spreadsheets. */
export function csvCell(v: string): string {
  const safe = /^[=+\-@]/.test(v) && !/^[+-]\d/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Appends each result to a CSV file (the header first when the file is new or empty). */
export function csvSink(path: string): ResultSink {
  let chain = Promise.resolve();
  return {
    write(r) {
      // One write after another: rows never interleave.
      chain = chain.then(async () => {
        const size = await stat(path).then((s) => s.size, () => 0);
        await appendFile(path, `${size ? '' : `${RESULT_COLUMNS.join(',')}\n`}${csvRow(r)}\n`);
      });
      return chain;
    },
  };
}

/** POSTs each result to the signed webhook (the analytics webhook's signature; the delivery id is the dial id). */
export function webhookSink(o: WebhookOptions, fetchImpl?: typeof fetch): ResultSink {
  return { write: (r) => postWebhook(o, r.dialId, { type: 'campaign.result', ...r }, fetchImpl) };
}
