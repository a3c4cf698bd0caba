import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodeWav, encodeWav } from '../../src/audio/wav.ts';
import {
  BadRequestError,
  NotFoundError,
  PayloadTooLargeError,
  ProtocolError,
  ValidationError,
  collectTimestamped,
} from '../../src/service/index.ts';
import { formOf, json, startFake, type Fake } from '../helpers/fake-service.ts';

const pcm = new Int16Array([100, -200, 300, -400, 500, -600, 700]);
const pcmBytes = Buffer.from(pcm.buffer);
const text = 'مرحبا <break time="500ms"/> بكم';

function alignmentOf(s: string) {
  const chars = [...s];
  return {
    characters: chars,
    character_start_times_seconds: chars.map((_, i) => i * 0.05),
    character_end_times_seconds: chars.map((_, i) => (i + 1) * 0.05),
  };
}

let fake: Fake;
before(async () => {
  fake = await startFake({
    'GET /voices': (_r, res) => json(res, 200, { voices: [{ voice_id: 'ar-najdi-male-2', name: 'Najdi', languages: ['ar'], dialect: ['najdi'] }] }),
    'POST /text-to-speech/tts-v1-preview': async (req, res) => {
      const body = JSON.parse(req.body.toString());
      if (body.streaming) {
        res.writeHead(200, { 'content-type': `audio/raw;codec=pcm16;rate=${body.sample_rate ?? 24000};channels=1` });
        // odd-sized pieces: the client must never hand out half a sample
        res.write(pcmBytes.subarray(0, 3));
        await new Promise((r) => setTimeout(r, 10));
        res.write(pcmBytes.subarray(3, 8));
        res.end(pcmBytes.subarray(8));
      } else {
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.end(Buffer.from(encodeWav(pcm, body.sample_rate ?? 24000)));
      }
    },
    'POST /text-to-speech/unknown-model': (_r, res) => json(res, 404, { errorCode: 40401, errorMessage: 'Model not found' }),
    'POST /text-to-speech/{m}/with-timestamps': (req, res) => {
      const body = JSON.parse(req.body.toString());
      if (req.path.includes('old-model')) {
        return json(res, 400, { errorCode: 40001, errorMessage: 'Word timestamps are not available for model old-model' });
      }
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(JSON.stringify({ audio_base64: pcmBytes.subarray(0, 6).toString('base64') }) + '\n');
      res.write(JSON.stringify({ audio_base64: pcmBytes.subarray(6).toString('base64') }) + '\n');
      if (body.text === 'truncate me please') return res.end('{"alignment":{"charac');
      res.end(JSON.stringify({ alignment: alignmentOf(body.text), normalized_alignment: alignmentOf(body.text) }) + '\n');
    },
    'POST /voices/preview': (_r, res) => {
      res.writeHead(200, { 'content-type': 'audio/raw;codec=pcm16;rate=24000;channels=1' });
      res.end(pcmBytes);
    },
    'POST /voices/clone': async (req, res) => {
      const form = await formOf(req);
      json(res, 200, {
        id: '7b0c', voice_id: 'cloned-1', name: form.get('name'), description: null, gender: form.get('gender'), age: null,
        languages: String(form.get('languages')).split(','), dialect: String(form.get('dialects')).split(','),
        type: 'cloned', sample_url: 'http://x/s.wav', avatar_url: null, stability: Number(form.get('stability')),
      });
    },
    'POST /tashkil/diacritize': (req, res) => {
      const { text } = JSON.parse(req.body.toString());
      if (text.length > 100) return json(res, 413, { errorCode: 41301, errorMessage: 'Request body too large' });
      json(res, 200, { statusCode: 200, data: { original_text: text, diacritized_text: 'مَرْحَبًا' }, message: 'Success' });
    },
  });
});
after(() => fake.close());

test('voices: a {voices:[...]} wrapper is accepted', async () => {
  const voices = await fake.client().listVoices();
  assert.equal(voices[0]?.voice_id, 'ar-najdi-male-2');
});

test('streaming synthesis yields whole samples at the announced rate', async () => {
  const stream = await fake.client().synthesizeStream('tts-v1-preview', { voice_id: 'v', text: 'مرحبا بكم جميعا', sample_rate: 16000 });
  assert.equal(stream.sampleRate, 16000);
  const parts: Uint8Array[] = [];
  for await (const c of stream) {
    assert.equal(c.byteLength % 2, 0);
    parts.push(c);
  }
  const all = Buffer.concat(parts);
  assert.deepEqual(new Int16Array(all.buffer, all.byteOffset, all.length / 2), pcm);
  const sent = JSON.parse(fake.calls.at(-1)!.body.toString());
  assert.equal(sent.streaming, true);
});

test('whole-file synthesis returns a WAV', async () => {
  const wav = await fake.client().synthesizeWav('tts-v1-preview', { voice_id: 'v', text: 'مرحبا بكم جميعا', sample_rate: 48000 });
  const { samples, sampleRate } = decodeWav(wav);
  assert.equal(sampleRate, 48000);
  assert.deepEqual(samples, pcm);
  assert.equal(JSON.parse(fake.calls.at(-1)!.body.toString()).streaming, false);
});

test('unknown model is NotFoundError; out-of-range parameters fail before the network', async () => {
  await assert.rejects(fake.client().synthesizeWav('unknown-model', { voice_id: 'v', text: 'نص' }), NotFoundError);
  const n = fake.calls.length;
  const c = fake.client();
  await assert.rejects(c.synthesizeWav('m', { voice_id: 'v', text: 'x', speed: 1.5 }), /speed must be a number between 0.7 and 1.2/);
  await assert.rejects(c.synthesizeWav('m', { voice_id: 'v', text: 'x', stability: -0.1 }), /stability must be a number between 0 and 1/);
  await assert.rejects(c.synthesizeWav('m', { voice_id: '', text: 'x' }), /voice_id is required/);
  await assert.rejects(c.synthesizeWav('m', { voice_id: 'v', text: 'x', sample_rate: 96000 }), ValidationError);
  assert.equal(fake.calls.length, n, 'no request was sent');
});

test('with-timestamps: audio then alignment that reproduces the text, break tags included', async () => {
  const events = await fake.client().synthesizeWithTimestamps('tts-v1-5', { voice_id: 'v', text });
  const { audio, alignment, normalizedAlignment } = await collectTimestamped(events);
  assert.equal(audio.byteLength, pcmBytes.byteLength);
  assert.equal(alignment.characters.join(''), text);
  assert.ok(normalizedAlignment);
  assert.equal(JSON.parse(fake.calls.at(-1)!.body.toString()).text, text, 'break tag passed through untouched');
});

test('with-timestamps: a model without timings is a 400 with the service message', async () => {
  await assert.rejects(fake.client().synthesizeWithTimestamps('old-model', { voice_id: 'v', text: 'نص عربي' }), (e: unknown) => {
    assert.ok(e instanceof BadRequestError);
    assert.match(e.errorMessage, /Word timestamps are not available for model old-model/);
    return true;
  });
});

test('with-timestamps: truncated NDJSON is a ProtocolError after the audio that did arrive', async () => {
  const events = await fake.client().synthesizeWithTimestamps('m', { voice_id: 'v', text: 'truncate me please' });
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const e of events) seen.push(e.type);
    })(),
    (e: unknown) => e instanceof ProtocolError && /truncated/.test(e.message),
  );
  assert.deepEqual(seen, ['audio', 'audio']);
});

test('preview: validation of text, similarity and speed; the stream rate comes from the content type', async () => {
  const c = fake.client();
  const file = { data: new Uint8Array(encodeWav(pcm, 16000)), filename: 'ref.wav', contentType: 'audio/wav' };
  const n = fake.calls.length;
  await assert.rejects(c.previewVoice({ text: 'قصير جدا', similarity: 0.5, model_id: 'm', file }), /at least 3 words and 10 characters/);
  await assert.rejects(c.previewVoice({ text: 'هذا نص تجريبي طويل', similarity: 2, model_id: 'm', file }), /similarity must be a number between 0 and 1/);
  await assert.rejects(c.previewVoice({ text: 'هذا نص تجريبي طويل', similarity: 0.5, model_id: 'm', speed: 0.5, file }), /speed/);
  await assert.rejects(c.previewVoice({ text: 'هذا نص تجريبي طويل', similarity: 0.5, model_id: 'm', file: undefined as never }), /file is required and must be a file/);
  // A path, what a user tries first, is refused before sending with how to make a file of it.
  await assert.rejects(c.transcribe({ file: 'call.wav' as never }), /file is required and must be a file: a File or Blob \(from a path: new File\(\[await openAsBlob\(path\)\], 'name\.wav'\).*got a string \("call\.wav"\)/);
  assert.equal(fake.calls.length, n);
  const stream = await c.previewVoice({ text: 'هذا نص تجريبي طويل', similarity: 0.8, model_id: 'm', file });
  assert.equal(stream.sampleRate, 24000);
  let bytes = 0;
  for await (const chunk of stream) bytes += chunk.byteLength;
  assert.equal(bytes, pcmBytes.byteLength);
});

test('clone: multipart with every field, comma lists, and a typed record back', async () => {
  const wav = new Blob([encodeWav(pcm, 24000)], { type: 'audio/wav' });
  const voice = await fake.client().cloneVoice({
    voice_file: wav,
    reference_audio_file: { data: encodeWav(pcm, 16000), filename: 'ref.wav' },
    text: 'هذا نص تجريبي طويل',
    stability: 0.6,
    name: 'Saad',
    model: 'tts-v1-preview',
    gender: 'male',
    languages: ['ar', 'en'],
    dialects: 'najdi,gulf',
  });
  assert.equal(voice.voice_id, 'cloned-1');
  assert.deepEqual(voice.languages, ['ar', 'en']);
  assert.deepEqual(voice.dialect, ['najdi', 'gulf']);
  assert.equal(voice.stability, 0.6);
  const form = await formOf(fake.calls.at(-1)!);
  assert.ok(form.get('voice_file') instanceof Blob);
  assert.ok(form.get('reference_audio_file') instanceof Blob);
  assert.equal(form.get('model'), 'tts-v1-preview');
  await assert.rejects(
    fake.client().cloneVoice({ voice_file: wav, reference_audio_file: wav, text: 't', stability: 0.5, name: '', model: 'm' }),
    /name is required/,
  );
  // A JavaScript caller missing several fields hears of all of them at once, before anything is sent.
  const n = fake.calls.length;
  await assert.rejects(
    fake.client().cloneVoice({ voice_file: wav, reference_audio_file: wav, text: 't', name: 'mine' } as never),
    /POST \/voices\/clone: model, stability are required/,
  );
  assert.equal(fake.calls.length, n);
});

test('tashkil: the envelope is unwrapped; 413 is PayloadTooLargeError', async () => {
  const r = await fake.client().diacritize('مرحبا');
  assert.equal(r.diacritized_text, 'مَرْحَبًا');
  assert.equal(r.original_text, 'مرحبا');
  await assert.rejects(fake.client().diacritize('ا'.repeat(200)), PayloadTooLargeError);
});
