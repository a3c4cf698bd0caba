import { randomUUID } from 'node:crypto';
import { badRequest, notFound } from '../http/errors.ts';
import { boolField, fileField, strField, type Route, type RouteCtx } from '../http/server.ts';
import { findModel, STT_MODEL_IDS } from '../catalogue.ts';
import { decodeAudio } from '../media.ts';
import { audioCost } from '../pricing.ts';
import { keywordsOf, sentimentOf, summaryOf } from '../text-analysis.ts';
import { speakersByPitch, transcribeSamples, turnGender, turnSentiment, type FileTranscript } from '../transcriber.ts';
import { oneOf } from './validate.ts';

const FILE_LIMIT = 300 * 1024 * 1024;
const MAX_SECONDS = 60 * 60;
const NOTE = 'sandbox recognizer: only phrases the sandbox voiced or was given in its phrasebook are recognized';

async function transcribeUpload(ctx: RouteCtx, form: FormData): Promise<{ t: FileTranscript; model: string; file: Blob }> {
  // Either name of a model (asr / munsit, asr-en-ar / munsit-en-ar); behaviour follows its family.
  const model = findModel(oneOf(form.get('model') ?? undefined, 'model', STT_MODEL_IDS) ?? 'asr', 'stt')!.family;
  const file = form.get('file');
  if (!(file instanceof Blob)) throw badRequest('file is required and must be a file');
  const audio = await decodeAudio(file, 16000, {
    seconds: MAX_SECONDS,
    message: 'Audio longer than 60 minutes is not supported',
  });
  ctx.charge(audioCost(audio.duration));
  return { t: await transcribeSamples(ctx.state.recognizer, audio.samples), model, file };
}

function byCount(labels: string[]): { dominant: string; counts: Record<string, number> } {
  const counts: Record<string, number> = {};
  for (const l of labels) counts[l] = (counts[l] ?? 0) + 1;
  const dominant = Object.entries(counts).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'neutral';
  return { dominant, counts };
}

export const sttRoutes: Route[] = [
  {
    method: 'POST',
    pattern: /^\/audio\/transcribe$/,
    endpoint: '/audio/transcribe',
    bodyLimit: FILE_LIMIT,
    handler: async (ctx) => {
      const form = await ctx.form();
      const { t, model, file } = await transcribeUpload(ctx, form);
      const flag = (n: string) => boolField(form, n);
      const timestampsOn = model === 'asr' ? form.get('return_timestamps') !== 'false' : flag('return_timestamps');
      const diarize = form.get('diarize') === 'true';
      const speakers = diarize ? speakersByPitch(t.turns) : undefined;
      const speakerOfWord = (start: number) => {
        const k = t.turns.findIndex((turn) => start >= turn.start - 0.2 && start <= turn.end + 0.2);
        return speakers?.speakers[Math.max(0, k)] ?? 0;
      };
      const data: Record<string, unknown> = {
        transcriptionId: randomUUID(),
        transcription: t.text,
        summary: '',
        duration: t.duration,
        timestamps: timestampsOn
          ? t.words.map((w) => ({
              word: w.word, start: w.start, end: w.end,
              ...(flag('return_confidence') ? { confidence: w.confidence } : {}),
              ...(speakers ? { speaker: speakerOfWord(w.start) } : {}),
            }))
          : [],
      };
      const wantTurns = flag('return_turns') || flag('return_gender') || flag('return_sentiment');
      if (wantTurns) {
        data.turns = t.turns.map((turn, i) => ({
          turn_id: i, start: turn.start, end: turn.end, text: turn.text,
          ...(flag('return_turns') ? { is_complete: turn.recognized, turn_probability: turn.recognized ? 0.9 : 0.5 } : {}),
          ...(flag('return_gender') ? { gender: turnGender(turn) } : {}),
          ...(flag('return_sentiment') ? { sentiment: turnSentiment(turn) } : {}),
        }));
      }
      if (flag('return_gender') || flag('return_sentiment')) {
        const analysis: Record<string, unknown> = { turns: t.turns.length };
        if (flag('return_gender')) {
          const by: Record<string, number> = {};
          for (const turn of t.turns) by[turnGender(turn).label] = (by[turnGender(turn).label] ?? 0) + (turn.end - turn.start);
          analysis.gender = { dominant: Object.entries(by).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown', by_duration_s: by };
        }
        if (flag('return_sentiment')) analysis.sentiment = byCount(t.turns.map((x) => turnSentiment(x).label));
        data.analysis = analysis;
      }
      if (diarize) {
        if (!speakers) data.diarization = { status: 'unavailable', speaker_cap_reached: false };
        else {
          const utterances: { speaker: number; start: number; end: number; text: string }[] = [];
          t.turns.forEach((turn, i) => {
            const last = utterances.at(-1);
            const sp = speakers.speakers[i]!;
            if (last && last.speaker === sp && turn.start - last.end < 1) {
              last.end = turn.end;
              last.text = `${last.text} ${turn.text}`.trim();
            } else utterances.push({ speaker: sp, start: turn.start, end: turn.end, text: turn.text });
          });
          const talk = new Map<number, number>();
          for (const u of utterances) talk.set(u.speaker, (talk.get(u.speaker) ?? 0) + u.end - u.start);
          data.utterances = utterances;
          data.speakers = [...talk.entries()].map(([speaker, s]) => ({ speaker, talk_time_s: Math.round(s * 1000) / 1000 }));
          data.diarization = { status: 'ok', speaker_cap_reached: speakers.capReached };
        }
      }
      // fileSize as the live service writes it (a recorded response: "0.08 MB").
      data.stats = { fileName: (file as File).name ?? 'audio', fileSize: `${(file.size / 1024 / 1024).toFixed(2)} MB`, creditsConsumed: audioCost(t.duration) };
      data.sandbox = { unrecognized_turns: t.unrecognized, note: NOTE };
      ctx.state.transcripts.set(data.transcriptionId as string, {
        id: data.transcriptionId as string, owner: ctx.key.spec.key, text: t.text, turns: t.turns,
      });
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({ statusCode: 200, data, message: 'Success' }));
    },
  },
  {
    method: 'POST',
    pattern: /^\/audio\/diarization\/transcribe$/,
    endpoint: '/audio/diarization',
    bodyLimit: FILE_LIMIT,
    handler: async (ctx) => {
      const { t } = await transcribeUpload(ctx, await ctx.form());
      const speakers = speakersByPitch(t.turns);
      const label = (i: number) => `SPEAKER_${String(speakers?.speakers[i] ?? 0).padStart(2, '0')}`;
      const merged = t.turns.map((turn, i) => ({ start: turn.start, end: turn.end, speaker: label(i), text: turn.text }));
      const id = ctx.state.nextDiarizationId++;
      ctx.state.diarizations.set(id, {
        id: String(id), owner: ctx.key.spec.key, text: t.text,
        turns: t.turns.map((turn, i) => ({ ...turn, speaker: speakers?.speakers[i] ?? 0 })),
      });
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({
        id,
        transcription: { text: t.text, timestamps: t.words.map(({ word, start, end }) => ({ word, start, end })) },
        diarization: { status: speakers ? 'ok' : 'unavailable', segments: merged.map(({ start, end, speaker }) => ({ start, end, speaker })) },
        merged,
        duration: t.duration,
      }));
    },
  },
  {
    method: 'POST',
    pattern: /^\/diarization\/([^/]+)\/sentiment-analysis$/,
    endpoint: '/diarization',
    handler: async (ctx) => {
      const body = await ctx.json();
      const depth = oneOf(body.analysis_depth, 'analysis_depth', ['light', 'standard', 'deep'] as const) ?? 'standard';
      const id = Number(ctx.params[0]);
      if (!Number.isInteger(id)) throw badRequest('diarizationId must be a number');
      const d = ctx.state.diarizations.get(id);
      if (!d || d.owner !== ctx.key.spec.key) throw notFound('Diarization not found');
      const per = new Map<number, string[]>();
      for (const turn of d.turns) per.set(turn.speaker ?? 0, [...(per.get(turn.speaker ?? 0) ?? []), turn.text]);
      const overall = sentimentOf(d.text);
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({
        language: 'ar',
        analysis_depth: depth,
        overall_sentiment: overall,
        speaker_sentiments: [...per.entries()].map(([speaker, texts]) => ({ speaker, ...sentimentOf(texts.join(' ')) })),
        sentiment_trends: d.turns.map((turn) => ({ start: turn.start, end: turn.end, speaker: turn.speaker ?? 0, ...sentimentOf(turn.text) })),
        confidence_score: overall.score,
      }));
    },
  },
  {
    method: 'POST',
    pattern: /^\/minutes-of-meeting\/transcribe$/,
    endpoint: '/minutes-of-meeting',
    bodyLimit: FILE_LIMIT,
    handler: async (ctx) => {
      const { t } = await transcribeUpload(ctx, await ctx.form());
      const id = randomUUID();
      ctx.state.transcripts.set(id, { id, owner: ctx.key.spec.key, text: t.text, turns: t.turns });
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({
        statusCode: 200,
        data: { transcriptionId: id, originalTranscript: t.text, transcription: t.text, summary: summaryOf(t.text), duration: t.duration },
        message: 'Success',
      }));
    },
  },
  {
    method: 'POST',
    pattern: /^\/minutes-of-meeting\/([^/]+)\/keyword-extraction$/,
    endpoint: '/minutes-of-meeting',
    handler: (ctx) => {
      const t = ctx.state.transcripts.get(ctx.params[0]!);
      if (!t || t.owner !== ctx.key.spec.key) throw notFound('Transcription not found');
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({ statusCode: 200, data: { transcriptionId: t.id, keywords: keywordsOf(t.text) }, message: 'Success' }));
    },
  },
  {
    method: 'POST',
    pattern: /^\/audio\/([^/]+)\/sentiment-analysis$/,
    endpoint: '/audio/sentiment-analysis',
    handler: (ctx) => {
      const t = ctx.state.transcripts.get(ctx.params[0]!);
      if (!t || t.owner !== ctx.key.spec.key) throw notFound('Transcription not found');
      const overall = sentimentOf(t.text);
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({
        statusCode: 200,
        data: { transcriptionId: t.id, sentiment: overall.label, score: overall.score, turns: t.turns.map((x) => ({ start: x.start, end: x.end, ...sentimentOf(x.text) })) },
        message: 'Success',
      }));
    },
  },
];

/** Routes that need a model the sandbox does not have unless one is configured. */
export const textRoutes: Route[] = [
  {
    method: 'POST',
    pattern: /^\/tashkil\/diacritize$/,
    endpoint: '/tashkil',
    bodyLimit: 64 * 1024,
    handler: async (ctx) => {
      const body = await ctx.json();
      const text = body.text;
      if (typeof text !== 'string' || !text.trim()) throw badRequest('text is required');
      if (!ctx.state.hooks.diacritize) {
        ctx.res.writeHead(501, { 'content-type': 'application/json' });
        return void ctx.res.end(JSON.stringify({ errorCode: 50101, errorMessage: 'Diacritization is not available in the sandbox: no tashkil model is configured (give startSandbox a `diacritize` function, or use the real service with HIWAR_API_KEY)' }));
      }
      const diacritized = await ctx.state.hooks.diacritize(text);
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({ statusCode: 200, data: { original_text: text, diacritized_text: diacritized }, message: 'Success' }));
    },
  },
  {
    method: 'POST',
    pattern: /^\/translation\/stream$/,
    endpoint: '/translation',
    handler: async (ctx) => {
      const body = await ctx.json();
      if (typeof body.text !== 'string' || !body.text.trim()) throw badRequest('text is required');
      if (typeof body.target_language !== 'string') throw badRequest('target_language is required');
      if (!ctx.state.hooks.translate) {
        ctx.res.writeHead(501, { 'content-type': 'application/json' });
        return void ctx.res.end(JSON.stringify({ errorCode: 50101, errorMessage: 'Translation is not available in the sandbox: no translation model is configured (give startSandbox a `translate` function, or use the real service with HIWAR_API_KEY)' }));
      }
      ctx.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for await (const piece of ctx.state.hooks.translate(body.text, body.target_language)) {
        ctx.res.write(`data: ${JSON.stringify({ text: piece })}\n\n`);
      }
      ctx.res.end('data: [DONE]\n\n');
    },
  },
];
