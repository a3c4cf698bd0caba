import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { decodeWav } from '../../src/audio/wav.ts';
import { mulaw } from '../../src/audio/g711.ts';
import { resample } from '../../src/audio/resample.ts';
import { builtInVoices } from '../../src/sandbox/catalogue.ts';
import { VOCABULARY_WORDS, builtInVocabulary } from '../../src/sandbox/engines/builtin-vocabulary.ts';
import { voiceText, type EspeakVoice } from '../../src/sandbox/engines/espeak.ts';
import { Recognizer } from '../../src/sandbox/engines/recognizer.ts';
import { VOCABULARY_DATA } from '../../src/sandbox/engines/vocabulary-data.ts';
import { UNKNOWN_CLASS } from '../../src/sandbox/engines/word-model.ts';
import { wordFrames, wordSegments } from '../../src/sandbox/engines/word-features.ts';
import { WORD_MODEL_DATA } from '../../src/sandbox/engines/word-model-data.ts';
import { recordingsDir } from '../helpers/recordings.ts';

// What the package ships: no recordings needed (the templates are derived features in src/).
const rec = new Recognizer();
const voices = builtInVoices('').map((v) => v.espeak);

async function heard(text: string, voice: EspeakVoice, phone = false): Promise<Int16Array> {
  const v = await voiceText(text, voice);
  let pcm = await resample(v.samples, v.sampleRate, phone ? 8000 : 16000);
  if (phone) pcm = await resample(mulaw.decode(mulaw.encode(pcm)), 8000, 16000);
  const padded = new Int16Array(pcm.length + 16000);
  padded.set(pcm, 8000);
  return padded;
}

test('the shipped vocabulary loads: the 13 words, templates of six people and the sandbox voices, small', () => {
  assert.deepEqual(VOCABULARY_WORDS, ['صفر', 'واحد', 'اثنان', 'ثلاثة', 'أربعة', 'خمسة', 'ستة', 'سبعة', 'ثمانية', 'تسعة', 'نعم', 'لا', 'موافق']);
  const speakers = new Set(VOCABULARY_DATA.index.map(([, source]) => source).filter((s) => !s.startsWith('espeak:')));
  assert.equal(speakers.size, 6);
  assert.ok(VOCABULARY_DATA.bytes.length < 1_000_000, `${VOCABULARY_DATA.bytes.length} bytes`);
  // The trained classifier of each band: the same words and one class for anything else, small.
  for (const net of [WORD_MODEL_DATA.wide, WORD_MODEL_DATA.phone]) {
    assert.deepEqual(net.classes, [...VOCABULARY_WORDS, UNKNOWN_CLASS]);
    assert.ok(JSON.stringify(net).length < 100_000, `${JSON.stringify(net).length} characters`);
  }
  const vocab = builtInVocabulary();
  for (const w of VOCABULARY_WORDS) for (const band of ['wide', 'phone']) assert.ok(vocab.limits.get(`${band}|${w}`)! > 0, `${band}|${w} has a limit`);
});

test('digits said with pauses, never taught as a phrase, are heard word by word, also through a phone line', async () => {
  for (const [i, voice] of voices.entries()) {
    const said = 'صفر، خمسة، خمسة، ثلاثة';
    // Over a phone line the rate says so (/listen at 8 kHz), as here.
    const phone = i % 2 === 1;
    const r = rec.recognize(await heard(said, voice, phone), false, phone ? 'phone' : undefined);
    assert.equal(r?.text, 'صفر خمسة خمسة ثلاثة', `voice ${i}`);
    assert.equal(r.words.length, 4);
    for (let k = 1; k < 4; k++) assert.ok(r.words[k]!.start >= r.words[k - 1]!.end - 0.02, 'words in order');
  }
  assert.equal(rec.recognize(await heard('نعم', voices[2]!))?.text, 'نعم');
  assert.equal(rec.recognize(await heard('لا', voices[0]!, true), false, 'phone')?.text, 'لا');
});

test('words outside the vocabulary, and a sequence with one of them, get no answer', async () => {
  for (const other of ['مرحبا', 'الطقس جميل اليوم', 'شكرا', 'صفر، مرحبا، خمسة']) {
    assert.equal(rec.recognize(await heard(other, voices[0]!)), undefined, other);
  }
  assert.equal(rec.recognize(new Int16Array(32000)), undefined, 'silence');
  assert.equal(new Recognizer({ vocabulary: false }).recognize(await heard('خمسة', voices[0]!)), undefined, 'phrases only');
});

test('partial audio: the words already finished, not the one under way', async () => {
  const v = await voiceText('واحد، اثنان، ثلاثة', voices[0]!);
  const cut = v.words[2]!.start + 0.1; // into ثلاثة
  const pcm = await resample(v.samples.subarray(0, Math.round(cut * v.sampleRate)), v.sampleRate, 16000);
  assert.equal(rec.recognize(pcm, true)?.text, 'واحد اثنان');
});

// Real recordings are not in the repository (docs/sandbox.md#real-recordings-for-the-recognizer-bench).
const SPEECH = join(recordingsDir() ?? '.', 'ar-speech-commands');
const noRecordings = existsSync(SPEECH) ? false : `no recordings of real speech in ${SPEECH} (set HIWAR_AUDIO_DIR)`;

test('a word the endpointing cuts in two (the stop inside ستة) is heard as one word', { skip: noRecordings }, () => {
  for (const speaker of ['00000010', '00000026']) {
    const pcm = decodeWav(readFileSync(join(SPEECH, `six_${speaker}.wav`))).samples;
    assert.equal(wordSegments(wordFrames(pcm, 'wide').energy).length, 2, `${speaker}: two stretches of speech`);
    // Said twice with a pause between: two words, each one joined back.
    const twice = new Int16Array(2 * pcm.length + 8000);
    twice.set(pcm);
    twice.set(pcm, pcm.length + 8000);
    assert.equal(rec.recognize(pcm)?.text, 'ستة', speaker);
    assert.equal(rec.recognize(twice)?.text, 'ستة ستة', `${speaker}, twice`);
  }
});
