import type { SessionFactory } from '../server/calls.ts';
import type { CallOutcome } from '../server/types.ts';
import type { CallReport } from '../session/events.ts';
import type { Logger } from '../session/logger.ts';
import type { Transport } from '../transport/types.ts';
import { putCallRecord } from './call-record.ts';
import type { AnalyticsJob } from './job.ts';
import { jobForCall } from './job-of-call.ts';
import { CallRecorder, type RecorderOptions } from './recorder.ts';
import type { RecordingStore } from './store.ts';

/** Where a finished call's job goes: a BullMQ queue, or the in-process runner. */
export interface JobSink {
  /** Queues an ended call's analytics job (BullMQ, or run in this process). */
  enqueue(job: AnalyticsJob): Promise<void>;
}

/** What `CallAnalytics` needs: where recordings go and where jobs go. */
export interface CallAnalyticsOptions {
  store: RecordingStore;
  sink: JobSink;
  logger: Logger;
  recorder?: RecorderOptions;
}

/**
 * The serve side of post-call analytics: records each call (both sides) through its transport,
 * and when the call has ended stores the recording and hands a job to the sink. Wire it with
 * `sessions: analytics.sessions(factory)` and `onCallEnded: analytics.onCallEnded`.
 */
export class CallAnalytics {
  private readonly recorders = new WeakMap<Transport, CallRecorder>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly o: CallAnalyticsOptions) {}

  /** A session factory whose sessions run on a recorded view of each transport. */
  sessions(inner: SessionFactory): SessionFactory {
    return (transport) => {
      const recorder = new CallRecorder(transport, this.o.recorder);
      this.recorders.set(transport, recorder);
      return inner(recorder.transport);
    };
  }

  /** For `onCallEnded`: stores the recording and enqueues the job, in the background. */
  onCallEnded = (transport: Transport, report: CallReport | undefined, outcome: CallOutcome): void => {
    const recorder = this.recorders.get(transport);
    this.recorders.delete(transport);
    if (!recorder || !report) return;
    const work = this.submit(transport, recorder, report, outcome).catch((err: Error) =>
      this.o.logger.error({ call: transport.call.callId, err: err.message }, 'could not hand the call to analytics (its recording, if stored, stays in the store)'),
    );
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  };

  private async submit(transport: Transport, recorder: CallRecorder, report: CallReport, outcome: CallOutcome): Promise<void> {
    if (recorder.seconds === 0) return;
    const recording = await recorder.finish();
    const job = jobForCall(transport.call, report, recording, new Date(), outcome);
    // The recording is stored before the job exists: a job never points at nothing.
    await this.o.store.put(job.recording.key, recording.wav);
    // The whole report beside it, for the review page of the call (/calls/<job id>).
    await putCallRecord(this.o.store, job, report, recording.startClock);
    await this.o.sink.enqueue(job);
    this.o.logger.info({ call: transport.call.callId, job: job.jobId }, 'analytics job queued');
  }

  /** Resolves once every ended call has been handed over (for a drain). */
  async flush(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }
}
