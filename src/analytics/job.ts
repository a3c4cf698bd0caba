import { z } from 'zod';

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

export { jobForCall, jobIdFor, recordingKey } from './job-of-call.ts';
