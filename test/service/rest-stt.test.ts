import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { encodeWav } from '../../src/audio/wav.ts';
import { NotFoundError, ProtocolError, ValidationError } from '../../src/service/index.ts';
import { formOf, json, startFake, type Fake } from '../helpers/fake-service.ts';

const file = { data: encodeWav(new Int16Array(1600), 16000), filename: 'a.wav', contentType: 'audio/wav' };
const on = (v: unknown) => v === 'true';

let fake: Fake;
before(async () => {
  fake = await startFake({
    'POST /audio/transcribe': async (req, res) => {
      const f = await formOf(req);
      const turnsOn = on(f.get('return_turns')) || on(f.get('return_gender')) || on(f.get('return_sentiment'));
      const data: Record<string, unknown> = {
        transcriptionId: '9f1e', transcription: 'نعم موافق', summary: '', duration: 1.2,
        timestamps: [
          { word: 'نعم', start: 0.1, end: 0.4, ...(on(f.get('return_confidence')) ? { confidence: 0.9 } : {}), ...(on(f.get('diarize')) ? { speaker: 0 } : {}) },
        ],
      };
      if (turnsOn) {
        data.turns = [{ turn_id: 0, start: 0.1, end: 1.1, text: 'نعم موافق',
          ...(on(f.get('return_turns')) ? { is_complete: true, turn_probability: 0.93 } : {}),
          ...(on(f.get('return_gender')) ? { gender: { label: 'male', score: 0.9 } } : {}),
          ...(on(f.get('return_sentiment')) ? { sentiment: { label: 'positive', score: 0.7 } } : {}) }];
      }
      if (on(f.get('return_gender')) || on(f.get('return_sentiment'))) {
        data.analysis = { turns: 1, ...(on(f.get('return_gender')) ? { gender: { dominant: 'male', by_duration_s: { male: 1 } } } : {}) };
      }
      if (on(f.get('diarize'))) {
        data.diarization = { status: 'ok', speaker_cap_reached: false };
        data.utterances = [{ speaker: 0, start: 0.1, end: 1.1, text: 'نعم موافق' }];
        data.speakers = [{ speaker: 0, talk_time: 1 }];
      }
      json(res, 200, { statusCode: 200, data, message: 'Success' });
    },
    'POST /audio/diarization/transcribe': (_r, res) =>
      json(res, 200, { transcription: { text: 'نعم' }, diarization: { segments: [{ start: 0, end: 1, speaker: 'SPEAKER_00' }] }, merged: [{ start: 0, end: 1, speaker: 'SPEAKER_00', text: 'نعم' }], duration: 1 }),
    'POST /diarization/{id}/sentiment-analysis': (req, res) =>
      json(res, 200, { language: 'ar', overall_sentiment: 'neutral', confidence_score: 0.8, depth: JSON.parse(req.body.toString()).analysis_depth ?? null }),
    'POST /minutes-of-meeting/transcribe': (_r, res) =>
      json(res, 200, { statusCode: 200, data: { transcriptionId: 'm1', originalTranscript: 'نعم', transcription: 'نعم', summary: 'موافقة', duration: 1 } }),
    'POST /minutes-of-meeting/{id}/keyword-extraction': (_r, res) => json(res, 200, { keywords: ['موافق'] }),
    'POST /audio/{id}/sentiment-analysis': (req, res) =>
      req.path.includes('missing') ? json(res, 404, { errorCode: 40401, errorMessage: 'Transcription not found' }) : json(res, 200, { sentiment: 'positive', score: 0.7 }),
    'POST /translation/stream': (req, res) => {
      const body = JSON.parse(req.body.toString());
      if (body.target_language === 'en') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"text":"Yes, "}\n\n');
        res.write('data: {"text":"agreed"}\n\n');
        res.end('data: [DONE]\n\n');
      } else {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.end('{"text":"Oui"}\n{"text":"","done":true}\n');
      }
    },
  });
});
after(() => fake.close());

test('transcribe sends every flag as a form field and types the result by the flags', async () => {
  const r = await fake.client().transcribe({
    file, return_confidence: true, return_turns: true, return_gender: true, return_sentiment: true, diarize: true, hotwords: ['مصرف الراجحي', 'مدى'],
  });
  const confidence: number = r.timestamps[0]!.confidence;
  assert.equal(confidence, 0.9);
  assert.equal(r.turns[0]!.turn_probability, 0.93);
  assert.equal(r.turns[0]!.gender.label, 'male');
  assert.equal(r.turns[0]!.sentiment.label, 'positive');
  assert.equal(r.analysis.gender.dominant, 'male');
  assert.equal(r.diarization.status, 'ok');
  assert.equal(r.utterances?.[0]?.speaker, 0);
  const form = await formOf(fake.calls.at(-1)!);
  assert.equal(form.get('hotwords'), 'مصرف الراجحي,مدى');
  assert.equal(form.get('diarize'), 'true');
  assert.equal(form.get('return_timestamps'), null, 'unset flags are not sent');
});

test('plain transcription has no turns or analysis', async () => {
  const r = await fake.client().transcribe({ file });
  assert.equal(r.transcription, 'نعم موافق');
  assert.equal('turns' in r, false);
  assert.equal('analysis' in r, false);
  assert.equal(r.timestamps[0]!.confidence, undefined);
});

test('transcribe validation: any model id, language not with asr (either name), file required', async () => {
  const c = fake.client();
  await c.transcribe({ file, model: 'whisper' });
  assert.equal((await formOf(fake.calls.at(-1)!)).get('model'), 'whisper');
  await assert.rejects(c.transcribe({ file, model: '' }), /model must be a non-empty string/);
  await assert.rejects(c.transcribe({ file, language: 'en' }), /language is only accepted with model asr-en-ar/);
  await assert.rejects(c.transcribe({ file, model: 'munsit', language: 'en' }), /language is only accepted with model asr-en-ar/);
  await c.transcribe({ file, model: 'munsit-en-ar', language: 'auto' });
  assert.equal((await formOf(fake.calls.at(-1)!)).get('model'), 'munsit-en-ar');
  await assert.rejects(c.transcribe({ file: 'a.wav' as never }), ValidationError);
  await c.transcribe({ file, model: 'asr-en-ar', language: 'ar-en' });
  const form = await formOf(fake.calls.at(-1)!);
  assert.equal(form.get('language'), 'ar-en');
});

test('diarization transcribe and its sentiment analysis', async () => {
  const c = fake.client();
  const d = await c.transcribeWithDiarization({ file, model: 'asr' });
  assert.equal(d.merged[0]?.text, 'نعم');
  const s = await c.diarizationSentiment(12, { analysis_depth: 'deep' });
  assert.equal(s.language, 'ar');
  assert.equal(s.depth, 'deep');
  assert.equal(fake.calls.at(-1)!.path, '/diarization/12/sentiment-analysis');
  await assert.rejects(c.diarizationSentiment(12, { analysis_depth: 'extreme' as never }), /analysis_depth/);
});

test('minutes of meeting, keyword extraction and transcription sentiment', async () => {
  const c = fake.client();
  const m = await c.minutesOfMeeting({ file });
  assert.equal(m.summary, 'موافقة');
  const k = await c.extractKeywords('m1');
  assert.deepEqual(k.keywords, ['موافق']);
  assert.equal(fake.calls.at(-1)!.path, '/minutes-of-meeting/m1/keyword-extraction');
  const s = await c.transcriptionSentiment('9f1e');
  assert.equal(s.sentiment, 'positive');
  await assert.rejects(c.transcriptionSentiment('missing'), NotFoundError);
});

test('translation stream reads SSE and NDJSON bodies', async () => {
  const c = fake.client();
  let text = '';
  for await (const chunk of await c.translateStream({ text: 'نعم موافق', target_language: 'en' })) text += chunk.text;
  assert.equal(text, 'Yes, agreed');
  const parts = [];
  for await (const chunk of await c.translateStream({ text: 'نعم', target_language: 'fr' })) parts.push(chunk);
  assert.equal(parts[0]?.text, 'Oui');
  assert.equal(parts[1]?.done, true);
  await assert.rejects(c.translateStream({ text: '', target_language: 'en' }), /text is required/);
});

test('a JSON endpoint that answers garbage is a ProtocolError', async () => {
  const bad = await (await import('../helpers/fake-service.ts')).startFake({
    'POST /audio/transcribe': (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"statusCode":200,"data":');
    },
  });
  try {
    await assert.rejects(bad.client().transcribe({ file }), ProtocolError);
  } finally {
    await bad.close();
  }
});
