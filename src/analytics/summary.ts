import type { KeywordExtraction, Label, MinutesOfMeeting, TranscriptionSentiment } from '../service/types.ts';
import type { AnalyticsJob } from './job.ts';

export type Role = 'caller' | 'agent' | 'unknown';

/** One diarized turn of the recording, with the side it came from. */
export interface SummaryTurn {
  /** The service's speaker number. */
  speaker: number;
  role: Role;
  start: number;
  end: number;
  text: string;
  sentiment?: Label;
  gender?: Label;
}

/** What the webhook receives for each call (docs/analytics.md describes every field). */
export interface CallSummary {
  type: 'call.analyzed';
  version: 1;
  jobId: string;
  call: AnalyticsJob['call'];
  agent: string;
  endedAt: string;
  ended: string;
  outcome?: string;
  durationSeconds: number;
  recording: { location: string; seconds: number; channels: 'caller-left-agent-right' };
  transcriptionId: string;
  /** "ok", or "unavailable" when the service could not tell speakers apart. */
  diarization: string;
  turns: SummaryTurn[];
  speakers: { speaker: number; role: Role; talkSeconds: number }[];
  sentiment: { overall?: string; score?: number; caller?: string; agent?: string };
  gender: { caller?: string; agent?: string };
  keywords: string[];
  /** The service's minutes of the call. */
  minutes?: string;
  /** The transcript the session kept live, for comparison with the recording's. */
  liveTranscript: AnalyticsJob['transcript'];
  /** A few Arabic sentences for a person skimming calls. */
  summaryAr: string;
}

/** The parts of /audio/transcribe (diarize, sentiment, gender) the summary reads. */
export interface DiarizedTranscription {
  transcriptionId: string;
  transcription: string;
  duration?: number;
  turns?: { start: number; end: number; text: string; sentiment?: Label; gender?: Label }[];
  utterances?: { speaker: number; start: number; end: number; text: string }[];
  diarization?: { status: string };
}

export interface SummaryInputs {
  job: AnalyticsJob;
  recordingLocation: string;
  transcription: DiarizedTranscription;
  sentiment?: TranscriptionSentiment;
  minutes?: MinutesOfMeeting;
  keywords?: KeywordExtraction;
  /** Which side each speaker number is (from the stereo channels, see roles.ts). */
  roles: Map<number, Role>;
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) => Math.min(a.end, b.end) - Math.max(a.start, b.start);

/** The label of the turn overlapping `u` most, if any. */
function labelOver(u: { start: number; end: number }, turns: DiarizedTranscription['turns'], pick: 'sentiment' | 'gender'): Label | undefined {
  let best: { o: number; l: Label } | undefined;
  for (const t of turns ?? []) {
    const l = t[pick];
    const o = overlap(u, t);
    if (l && o > 0 && (!best || o > best.o)) best = { o, l };
  }
  return best?.l;
}

/** The most frequent label of a side, weighted by turn length. */
function dominant(turns: SummaryTurn[], role: Role, pick: 'sentiment' | 'gender'): string | undefined {
  const by = new Map<string, number>();
  for (const t of turns) {
    const l = t[pick];
    if (t.role === role && l) by.set(l.label, (by.get(l.label) ?? 0) + (t.end - t.start));
  }
  return [...by.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

function keywordList(k: KeywordExtraction | undefined): string[] {
  return (k?.keywords ?? []).map((x) => (typeof x === 'string' ? x : x.keyword)).filter((x) => typeof x === 'string' && x.length > 0);
}

/**
 * The parts of the recording the summary lists: the diarized utterances, or, when the service
 * could not tell speakers apart, its turns, each its own "speaker" (negative numbers) so that
 * its side is still read from the recording's channels.
 */
export function spokenParts(tr: DiarizedTranscription): { speaker: number; start: number; end: number; text: string }[] {
  if (tr.diarization?.status === 'ok' && tr.utterances?.length) return tr.utterances;
  return (tr.turns ?? []).map((t, k) => ({ speaker: -(k + 1), start: t.start, end: t.end, text: t.text }));
}

/** The call summary from the service's answers: pure, so it is tested without a service. */
export function buildSummary(i: SummaryInputs): CallSummary {
  const tr = i.transcription;
  const turns: SummaryTurn[] = spokenParts(tr)
    .filter((u) => u.text.trim())
    .map((u) => {
      const sentiment = labelOver(u, tr.turns, 'sentiment');
      const gender = labelOver(u, tr.turns, 'gender');
      return {
        speaker: u.speaker,
        role: i.roles.get(u.speaker) ?? 'unknown',
        start: u.start,
        end: u.end,
        text: u.text,
        ...(sentiment ? { sentiment } : {}),
        ...(gender ? { gender } : {}),
      };
    });
  const talk = new Map<number, number>();
  for (const t of turns) talk.set(t.speaker, (talk.get(t.speaker) ?? 0) + (t.end - t.start));
  const base = {
    type: 'call.analyzed' as const,
    version: 1 as const,
    jobId: i.job.jobId,
    call: i.job.call,
    agent: i.job.agent,
    endedAt: i.job.endedAt,
    ended: i.job.ended,
    outcome: i.job.outcome,
    durationSeconds: i.job.durationSeconds,
    recording: { location: i.recordingLocation, seconds: i.job.recording.seconds, channels: 'caller-left-agent-right' as const },
    transcriptionId: tr.transcriptionId,
    diarization: tr.diarization?.status ?? 'not requested',
    turns,
    speakers: [...talk.entries()].map(([speaker, s]) => ({ speaker, role: i.roles.get(speaker) ?? ('unknown' as Role), talkSeconds: round(s) })),
    sentiment: {
      overall: i.sentiment?.sentiment,
      score: i.sentiment?.score,
      caller: dominant(turns, 'caller', 'sentiment'),
      agent: dominant(turns, 'agent', 'sentiment'),
    },
    gender: { caller: dominant(turns, 'caller', 'gender'), agent: dominant(turns, 'agent', 'gender') },
    keywords: keywordList(i.keywords),
    minutes: i.minutes?.summary || undefined,
    liveTranscript: i.job.transcript,
  };
  return { ...base, summaryAr: arabicSummary(base) };
}

const SENTIMENT_AR: Record<string, string> = { positive: 'إيجابي', negative: 'سلبي', neutral: 'محايد' };
const OUTCOME_AR: Record<string, string> = {
  completed: 'اكتملت',
  'caller-hangup': 'أنهاها المتصل',
  'agent-hangup': 'أنهاها الوكيل',
  transferred: 'حُوِّلت إلى موظف',
  failed: 'تعثّرت',
  'server-shutdown': 'أنهاها إيقاف الخادم',
};

/** Minutes and seconds in words a reader takes in at a glance ("٢ د ٥ ث" reads worse). */
function durationAr(seconds: number): string {
  const s = Math.round(seconds);
  const m = Math.floor(s / 60);
  return m ? `${m} دقيقة و${s % 60} ثانية` : `${s} ثانية`;
}

/** A short Arabic paragraph: who, how long, how it ended, what the caller wanted, the mood. */
export function arabicSummary(s: Omit<CallSummary, 'summaryAr'>): string {
  const parts: string[] = [];
  const who = s.call.from ? `من ${s.call.from}` : 'واردة';
  const how = s.outcome && OUTCOME_AR[s.outcome] ? `، ${OUTCOME_AR[s.outcome]}` : '';
  parts.push(`مكالمة ${who} مع الوكيل «${s.agent}» مدتها ${durationAr(s.durationSeconds)}${how}.`);
  const said = s.turns.filter((t) => t.role === 'caller').map((t) => t.text);
  if (said.length) parts.push(`قال المتصل: «${clip(said.join(' '), 160)}».`);
  const mood = s.sentiment.caller ?? s.sentiment.overall;
  if (mood) parts.push(`انطباع المتصل العام: ${SENTIMENT_AR[mood] ?? mood}.`);
  if (s.keywords.length) parts.push(`الكلمات المفتاحية: ${s.keywords.slice(0, 6).join('، ')}.`);
  if (s.minutes) parts.push(`الخلاصة: ${clip(s.minutes, 240)}`);
  return parts.join(' ');
}

const clip = (t: string, n: number) => ([...t].length > n ? `${[...t].slice(0, n - 1).join('')}…` : t);
const round = (v: number) => Math.round(v * 1000) / 1000;
