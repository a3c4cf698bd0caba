import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { concatPcm, mixAtSnr, silence } from '../../src/audio/pcm.ts';
import { decodeWav, encodeWav } from '../../src/audio/wav.ts';
import { NotFoundError, ValidationError } from '../../src/service/index.ts';
import { raw, runSandbox, voiced, type Running } from '../helpers/sandbox.ts';

let sb: Running;
let call: Uint8Array;
const LINES = ['أريد معرفة رصيد حسابي', 'حسنا سأتحقق من رصيدك الآن'];
before(async () => {
  sb = await runSandbox();
  // A caller (male voice) and an agent (female voice), a second apart.
  const caller = await voiced(sb.client, LINES[0]!, 16000, 'ar-najdi-male-2');
  const agent = await voiced(sb.client, LINES[1]!, 16000, 'ar-hijazi-female-1');
  call = encodeWav(concatPcm([silence(0.4, 16000), caller, silence(1.3, 16000), agent, silence(0.6, 16000)]), 16000);
});
after(() => sb.close());
const file = () => ({ data: call, filename: 'call.wav', contentType: 'audio/wav' });

test('transcribe: the words it voiced, with timings, confidence, turns, gender, sentiment', async () => {
  const r = await sb.client.transcribe({ file: file(), return_confidence: true, return_turns: true, return_gender: true, return_sentiment: true });
  assert.equal(r.transcription, LINES.join(' '));
  assert.deepEqual(r.timestamps.map((w) => w.word), LINES.join(' ').split(' '));
  assert.ok(r.timestamps.every((w) => w.confidence > 0 && w.confidence <= 1));
  assert.ok(r.timestamps[0]!.start >= 0.3 && r.timestamps[0]!.start < 0.6);
  assert.equal(r.turns.length, 2);
  assert.deepEqual(r.turns.map((t) => t.gender.label), ['male', 'female']);
  assert.equal(r.turns[0]!.is_complete, true);
  assert.equal(r.analysis.turns, 2);
  assert.ok(r.analysis.gender.by_duration_s.male! > 1);
  assert.ok(r.stats?.creditsConsumed);
});

test('transcribe: flags off means fields absent; return_timestamps=false empties timestamps', async () => {
  const r = await sb.client.transcribe({ file: file(), return_timestamps: false });
  assert.equal(r.transcription, LINES.join(' '));
  assert.deepEqual(r.timestamps, []);
  assert.equal('turns' in r, false);
  assert.equal('analysis' in r, false);
  assert.equal('diarization' in r, false);
});

test('diarize: two speakers told apart by pitch; silence makes diarization unavailable', async () => {
  const r = await sb.client.transcribe({ file: file(), diarize: true });
  assert.equal(r.diarization.status, 'ok');
  assert.deepEqual(r.utterances?.map((u) => u.speaker), [0, 1]);
  assert.equal(r.timestamps[0]!.speaker, 0);
  assert.equal(r.timestamps.at(-1)!.speaker, 1);
  const quiet = await sb.client.transcribe({ file: { data: encodeWav(silence(2, 16000), 16000), filename: 'q.wav' }, diarize: true });
  assert.equal(quiet.diarization.status, 'unavailable');
  assert.equal(quiet.utterances, undefined);
});

test('a quick answer, half a second after the caller, is two turns with both lines, not one unknown segment', async () => {
  // One segment at the file's endpointing (0.7 s): the recognizer, which matches one phrase at a
  // time, knew neither line in it until the segment was tried again at its shorter pauses.
  const caller = await voiced(sb.client, LINES[0]!, 16000, 'ar-najdi-male-2');
  const agent = await voiced(sb.client, LINES[1]!, 16000, 'ar-hijazi-female-1');
  const quick = encodeWav(concatPcm([silence(0.4, 16000), caller, silence(0.5, 16000), agent, silence(0.6, 16000)]), 16000);
  const r = await sb.client.transcribe({ file: { data: quick, filename: 'quick.wav' }, return_turns: true, return_gender: true });
  assert.equal(r.transcription, LINES.join(' '));
  assert.deepEqual(r.turns.map((t) => t.text), LINES);
  assert.deepEqual(r.turns.map((t) => t.gender.label), ['male', 'female']);
});

test('unknown speech is kept as a turn with an empty text, never invented', async () => {
  const { voiceText } = await import('../../src/sandbox/engines/espeak.ts');
  const { resample } = await import('../../src/audio/resample.ts');
  const v = await voiceText('الطقس جميل جدا هذا الصباح', { name: 'ar', pitch: 40, wpm: 185 });
  const pcm = await resample(v.samples, v.sampleRate, 16000);
  const r = await sb.client.transcribe({ file: { data: encodeWav(concatPcm([silence(0.3, 16000), pcm, silence(0.5, 16000)]), 16000), filename: 'x.wav' }, return_turns: true });
  assert.equal(r.transcription, '');
  assert.equal(r.turns.length, 1);
  assert.equal(r.turns[0]!.text, '');
  assert.equal((r.sandbox as { unrecognized_turns: number }).unrecognized_turns, 1);
});

test('diarization transcribe, then its sentiment analysis; minutes and keywords; transcription sentiment', async () => {
  const d = await sb.client.transcribeWithDiarization({ file: file() });
  assert.deepEqual(d.merged.map((m) => m.speaker), ['SPEAKER_00', 'SPEAKER_01']);
  assert.equal(d.merged[0]!.text, LINES[0]);
  const s = await sb.client.diarizationSentiment(d.id as number, { analysis_depth: 'light' });
  assert.equal(s.language, 'ar');
  assert.equal((s.speaker_sentiments as unknown[]).length, 2);
  await assert.rejects(sb.client.diarizationSentiment(999), NotFoundError);
  const m = await sb.client.minutesOfMeeting({ file: file() });
  assert.equal(m.transcription, LINES.join(' '));
  assert.ok(m.summary);
  const k = await sb.client.extractKeywords(m.transcriptionId!);
  assert.ok((k.keywords as { keyword: string }[]).some((x) => x.keyword === 'رصيد'));
  const t = await sb.client.transcribe({ file: file() });
  const sentiment = await sb.client.transcriptionSentiment(t.transcriptionId);
  assert.equal(sentiment.sentiment, 'neutral');
  await assert.rejects(sb.client.transcriptionSentiment('not-there'), NotFoundError);
});

test('denoise: job with progress to done, late subscriber gets the cached end, records list', async () => {
  const speech = await voiced(sb.client, 'أرجو إيقاف بطاقتي فورا', 16000);
  let seed = 7; // deterministic noise: a flaky assertion helps nobody
  const noise = Int16Array.from({ length: 16000 }, () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), Math.round((seed / 2 ** 31 - 0.5) * 3000)));
  const noisy = mixAtSnr(concatPcm([silence(0.5, 16000), speech, silence(0.5, 16000)]), noise, 5);
  const job = await sb.client.denoise({ data: encodeWav(noisy, 16000), filename: 'noisy.wav' });
  const stages: string[] = [];
  const url = await sb.client.waitForDenoise(job.denoiseId, (e) => stages.push(e.stage));
  assert.equal(stages.at(-1), 'done');
  const late: string[] = [];
  for await (const e of await sb.client.denoiseProgress(job.denoiseId)) late.push(e.stage);
  assert.deepEqual(late, ['done']);
  const clean = decodeWav(new Uint8Array(await (await fetch(url)).arrayBuffer()));
  assert.equal(clean.sampleRate, 16000);
  const noiseEnergy = (s: Int16Array) => s.subarray(2400, 7200).reduce((a, v) => a + v * v, 0); // after RNNoise settles
  assert.ok(noiseEnergy(clean.samples) < noiseEnergy(noisy) / 4, 'noise in the leading pause reduced');
  const second = await sb.client.denoise({ data: encodeWav(noisy, 16000), filename: 'second.wav' });
  await sb.client.waitForDenoise(second.denoiseId);
  const all = await sb.client.listDenoise();
  assert.deepEqual(all.slice(0, 2).map((r) => r.denoiseId), [second.denoiseId, job.denoiseId]);
  assert.deepEqual((await sb.client.listDenoise({ offset: 1, limit: 1 })).map((r) => r.denoiseId), [job.denoiseId]);
  const badPage = await raw(`${sb.sandbox.url}/denoise?offset=-1`, sb.key);
  assert.equal(badPage.status, 400);
  await assert.rejects(sb.client.denoiseProgress('00000000-0000-0000-0000-000000000000'), (e: unknown) => e instanceof NotFoundError && e.errorMessage === 'Denoise job not found');
});

test('denoise limits: over 200 MB and over 15 minutes are 400; video has its audio extracted', async () => {
  await assert.rejects(sb.client.denoise(new Blob([new Uint8Array(200 * 1024 * 1024 + 1)])), ValidationError);
  const big = new FormData();
  big.append('audio', new Blob([new Uint8Array(200 * 1024 * 1024 + 1)]), 'big.wav');
  const r = await raw(`${sb.sandbox.url}/denoise`, sb.key, { method: 'POST', body: big });
  assert.equal(r.status, 400);
  assert.match(r.body.errorMessage, /200 MB/);
  const long = await sb.client.denoise({ data: encodeWav(silence(15 * 60 + 5, 8000), 8000), filename: 'long.wav' }).catch((e) => e);
  assert.match(String(long.errorMessage ?? long), /15 minutes/);
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-'));
  const mp4 = join(dir, 'clip.mp4');
  execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=220:duration=1', '-f', 'lavfi', '-i', 'color=c=black:s=64x64:d=1', '-shortest', '-c:v', 'mpeg4', '-c:a', 'aac', mp4]);
  const job = await sb.client.denoise({ data: readFileSync(mp4), filename: 'clip.mp4' });
  assert.match(await sb.client.waitForDenoise(job.denoiseId), /\.wav\?expires=\d+&sig=/);
  const junk = await sb.client.denoise({ data: new Uint8Array(1000).fill(7), filename: 'junk.bin' }).catch((e) => e);
  assert.equal(junk.status, 400);
  assert.match(junk.errorMessage, /could not decode/);
});
