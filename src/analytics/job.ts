import { z } from 'zod';
import type { CallReport } from '../session/events.ts';
import type { CallInfo } from '../transport/types.ts';

/** A line of the live transcript, as the session heard and said it. */
const turnSchema = z.object({
  role: z.enum(['user', 'agent']),
  text: z.string(),
  heardText: z.string().optional(),
  interrupted: z.boolean().optional(),
  at: z.number(),
});

/**
 * What a post-call analytics job carries: who called, where the recording is (the bytes stay in
 * the recording store, a queue holds only this small record), and the live transcript.
 */
export const analyticsJobSchema = z.object({
  /** Unique per call: the queue's job id and the folder of its results. */
  jobId: z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'letters, digits, ".", "_" and "-" only'),
  call: z.object({
    callId: z.string(),
    provider: z.string(),
    from: z.string().optional(),
    to: z.string().optional(),
    direction: z.enum(['inbound', 'outbound']).optional(),
    parameters: z.record(z.string(), z.string()).default({}),
  }),
  agent: z.string(),
  /** ISO time the call ended. */
  endedAt: z.string(),
  ended: z.string(),
  outcome: z.string().optional(),
  durationSeconds: z.number().nonnegative(),
  recording: z.object({
    key: z.string(),
    sampleRate: z.number().int().positive(),
    seconds: z.number().nonnegative(),
    /** Stereo: the caller on the left channel, the agent on the right. */
    channels: z.literal(2),
  }),
  transcript: z.array(turnSchema),
});

/** One ended call's analytics job: the call's metadata, how it ended, its stereo recording's key and its transcript. */
export type AnalyticsJob = z.infer<typeof analyticsJobSchema>;

/** A job's data as read from a queue: a clear error naming the bad field, never a crash later. */
export function parseJob(data: unknown): AnalyticsJob {
  const r = analyticsJobSchema.safeParse(data);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new Error(`not an analytics job: ${i.path.join('.') || 'data'}: ${i.message}`);
  }
  return r.data;
}

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
