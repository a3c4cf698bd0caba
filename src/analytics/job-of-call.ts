// The job a call that just ended makes, apart from job.ts's schema that checks one read from a
// queue: a session's analytics builds jobs without loading zod (docs/testing.md, "Figures:
// start-up").
import type { CallReport } from '../session/events.ts';
import type { CallInfo } from '../transport/types.ts';
import type { AnalyticsJob } from './job.ts';

/** A job id from the call id: stable for the call, safe as a file name and a queue id. */
export function jobIdFor(call: CallInfo, endedAt: Date): string {
  const safe = call.callId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120);
  // The platform's call id may repeat (a test rig, a provider's reuse): the end time keeps jobs apart.
  return `${call.provider.replace(/[^A-Za-z0-9]/g, '')}-${safe}-${endedAt.getTime()}`;
}

export const recordingKey = (jobId: string) => `recordings/${jobId}.wav`;

/** The job for a call that just ended, its recording already stored under `recordingKey`. */
export function jobForCall(
  call: CallInfo,
  report: CallReport,
  recording: { sampleRate: number; seconds: number },
  endedAt: Date,
  outcome?: string,
): AnalyticsJob {
  const jobId = jobIdFor(call, endedAt);
  return {
    jobId,
    call: {
      callId: call.callId,
      provider: call.provider,
      from: call.from,
      to: call.to,
      direction: call.direction,
      parameters: call.parameters,
    },
    agent: report.agent,
    endedAt: endedAt.toISOString(),
    ended: report.ended,
    outcome,
    durationSeconds: report.durationSeconds,
    recording: { key: recordingKey(jobId), sampleRate: recording.sampleRate, seconds: recording.seconds, channels: 2 },
    transcript: report.turns.map(({ role, text, heardText, interrupted, at }) => ({ role, text, heardText, interrupted, at })),
  };
}
