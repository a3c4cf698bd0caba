import type { ServiceClient } from '../service/client.ts';
import type { Logger } from '../session/logger.ts';
import { mixdown, rolesOf, splitRecording } from './channels.ts';
import { AnalyticsError } from './failures.ts';
import type { AnalyticsJob } from './job.ts';
import type { RecordingStore } from './store.ts';
import { buildSummary, spokenParts, type CallSummary, type DiarizedTranscription } from './summary.ts';
import { postWebhook, type WebhookOptions } from './webhook.ts';

/** What a job runs on: the service, the store, and where the summary goes. */
export interface RunnerDeps {
  client: ServiceClient;
  store: RecordingStore;
  /** Without a webhook the summary is only written to the store. */
  webhook?: WebhookOptions;
  logger?: Logger;
  /** Stops the service calls of a job being abandoned (shutdown). */
  signal?: AbortSignal;
}

/** Where a job's answer for one step is kept in the store (`results/<jobId>/<step>.json`). */
export const resultKey = (jobId: string, step: string) => `results/${jobId}/${step}.json`;

/** The steps of a job, in order; each paid step's answer is kept before the next starts. */
export const STEPS = ['transcription', 'sentiment', 'minutes', 'keywords', 'summary', 'delivered'] as const;
export type Step = (typeof STEPS)[number];

/**
 * Runs one call's analytics through the service, then delivers the summary. Idempotent: each
 * step's answer is stored under the job id as soon as it arrives, and a retried job (after a
 * 429, a crash, a killed worker) reuses what is stored instead of paying for it again. A step in
 * flight when a worker dies is the only one that can be paid twice.
 */
export async function runAnalyticsJob(job: AnalyticsJob, deps: RunnerDeps): Promise<CallSummary> {
  const { client, store } = deps;
  const log = deps.logger?.child({ job: job.jobId });
  const wav = await store.get(job.recording.key);
  if (!wav) throw new AnalyticsError(`the recording ${job.recording.key} is not in the store`, false);
  let stereo;
  try {
    stereo = splitRecording(wav);
  } catch (err) {
    throw new AnalyticsError((err as Error).message, false);
  }
  const upload = { data: mixdown(stereo), filename: `${job.jobId}.wav`, contentType: 'audio/wav' };
  const opts = { signal: deps.signal };

  async function step<T>(name: Step, run: () => Promise<T>): Promise<T> {
    const kept = await store.get(resultKey(job.jobId, name));
    if (kept) {
      log?.debug({ step: name }, 'reusing a stored result');
      return JSON.parse(Buffer.from(kept).toString('utf8')) as T;
    }
    const value = await run();
    await store.put(resultKey(job.jobId, name), JSON.stringify(value ?? null));
    return value;
  }

  const transcription = await step('transcription', async () => {
    const t = await client.transcribe({ file: upload, diarize: true, return_sentiment: true, return_gender: true }, opts);
    return t as unknown as DiarizedTranscription;
  });
  const sentiment = await step('sentiment', () => client.transcriptionSentiment(transcription.transcriptionId, opts));
  const minutes = await step('minutes', () => client.minutesOfMeeting({ file: upload }, opts));
  const keywords = await step('keywords', async () =>
    minutes.transcriptionId ? client.extractKeywords(minutes.transcriptionId, opts) : { keywords: [] },
  );
  const summary = await step('summary', async () =>
    buildSummary({
      job,
      recordingLocation: store.locate(job.recording.key),
      transcription,
      sentiment,
      minutes,
      keywords,
      roles: rolesOf(stereo, spokenParts(transcription)),
    }),
  );
  if (deps.webhook) {
    await step('delivered', async () => {
      await postWebhook(deps.webhook!, job.jobId, summary);
      return { at: new Date().toISOString() };
    });
  }
  log?.info({ turns: summary.turns.length }, 'call analyzed');
  return summary;
}
