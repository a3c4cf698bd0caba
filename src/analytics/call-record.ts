import type { CallReport } from '../session/events.ts';
import type { AnalyticsJob } from './job.ts';
import { checkKey, type RecordingStore } from './store.ts';

/**
 * What the store keeps of each recorded call beside its recording, for the review pages
 * (`/calls`): the job's metadata, the whole report (turns, metrics, tools, handoffs) and where the
 * recording starts on the report's clock.
 */
export interface CallRecord {
  version: 1;
  jobId: string;
  call: AnalyticsJob['call'];
  agent: string;
  endedAt: string;
  outcome?: string;
  recording: AnalyticsJob['recording'] & { startClock?: number };
  report: CallReport;
}

/** The folder of call records in the store. */
export const CALL_RECORDS = 'calls';
/** Where a call's record is kept (`calls/<jobId>.json`). */
export const callRecordKey = (jobId: string) => `${CALL_RECORDS}/${jobId}.json`;

/** Stores a call's record (after its recording: a record never names a missing recording). */
export async function putCallRecord(store: RecordingStore, job: AnalyticsJob, report: CallReport, startClock?: number): Promise<CallRecord> {
  const record: CallRecord = {
    version: 1,
    jobId: job.jobId,
    call: job.call,
    agent: job.agent,
    endedAt: job.endedAt,
    ...(job.outcome ? { outcome: job.outcome } : {}),
    recording: { ...job.recording, ...(startClock !== undefined ? { startClock } : {}) },
    report,
  };
  await store.put(callRecordKey(job.jobId), JSON.stringify(record));
  return record;
}

/** A call's record, or undefined when there is none (or the id is no job id). */
export async function getCallRecord(store: RecordingStore, jobId: string): Promise<CallRecord | undefined> {
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(jobId)) return undefined;
  const bytes = await store.get(checkKey(callRecordKey(jobId)));
  if (!bytes) return undefined;
  const record = JSON.parse(Buffer.from(bytes).toString('utf8')) as CallRecord;
  if (record.version !== 1 || record.jobId !== jobId) throw new Error(`${callRecordKey(jobId)} is not a call record of this version`);
  return record;
}

/**
 * The job ids of the stored calls, newest first (a job id ends with the call's end time in ms),
 * at most `scan`. Throws when the store cannot list.
 */
export async function recentCallIds(store: RecordingStore, scan: number): Promise<string[]> {
  if (!store.list) throw new Error('this recording store cannot list its calls (it has no `list`): open a call by its id');
  const ids = (await store.list(CALL_RECORDS)).filter((k) => k.endsWith('.json')).map((k) => k.slice(CALL_RECORDS.length + 1, -'.json'.length));
  const endOf = (id: string) => Number(/-(\d+)$/.exec(id)?.[1] ?? 0);
  return ids.sort((a, b) => endOf(b) - endOf(a) || (a < b ? 1 : -1)).slice(0, scan);
}
