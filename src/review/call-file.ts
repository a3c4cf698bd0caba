import type { CallReport } from '../session/events.ts';
import { buildReviewModel } from './model.ts';
import { REVIEW_DEFAULTS } from './options.ts';
import { renderCallPage } from './page.ts';
import { waveformOf } from './peaks.ts';

/** What `callPageFile` turns into a page: the report, its stereo recording and how they line up. */
export interface CallFileInput {
  report: CallReport;
  /** The stereo recording (caller left, agent right). */
  wav: Uint8Array;
  /** The recording's name beside the page, linked when it is too large to embed. @default 'call.wav' */
  wavName?: string;
  /** Clock time (ms) of the recording's first sample, on the session's clock: lines the turns up. */
  recordingStartClock?: number;
  title?: string;
  clockNote?: string;
  embedAudioMaxBytes?: number;
}

/**
 * The self-contained review page of a finished call (`hiwar demo`'s call.html): the waveform and
 * the model inline, and the recording too when it is at most `embedAudioMaxBytes` (else linked
 * as `wavName`, beside the page).
 */
export async function callPageFile(i: CallFileInput): Promise<{ html: string; audioEmbedded: boolean }> {
  const { waveform, seconds } = waveformOf(i.wav);
  const offsetSeconds = i.report.startClock !== undefined && i.recordingStartClock !== undefined ? (i.report.startClock - i.recordingStartClock) / 1000 : 0;
  const model = buildReviewModel({ report: i.report, waveform, seconds, offsetSeconds, title: i.title, clockNote: i.clockNote });
  const embed = i.wav.byteLength <= (i.embedAudioMaxBytes ?? REVIEW_DEFAULTS.embedAudioMaxBytes);
  const audioSrc = embed ? `data:audio/wav;base64,${Buffer.from(i.wav.buffer, i.wav.byteOffset, i.wav.byteLength).toString('base64')}` : encodeURI(i.wavName ?? 'call.wav');
  return { html: await renderCallPage(model, { audioSrc }), audioEmbedded: embed };
}
