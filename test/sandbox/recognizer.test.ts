import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { mulaw } from '../../src/audio/g711.ts';
import { resample } from '../../src/audio/resample.ts';
import { voiceText, type EspeakVoice } from '../../src/sandbox/engines/espeak.ts';
import { Recognizer } from '../../src/sandbox/engines/recognizer.ts';

const A: EspeakVoice = { name: 'ar', pitch: 40, wpm: 185 };
const B: EspeakVoice = { name: 'ar', pitch: 58, wpm: 170 };
const phrases = ['أريد معرفة رصيد حسابي', 'أرجو إيقاف بطاقتي فورا', 'متى يفتح الفرع غدا', 'نعم', 'شكرا جزيلا لك'];
const rec = new Recognizer();

async function heard(text: string, voice: EspeakVoice, rate = 16000, codec = false): Promise<Int16Array> {
  const v = await voiceText(text, voice);
  let pcm = await resample(v.samples, v.sampleRate, rate);
  if (codec) pcm = mulaw.decode(mulaw.encode(pcm));
  const s16 = await resample(pcm, rate, 16000);
  const padded = new Int16Array(s16.length + 8000);
  padded.set(s16, 4000);
  return padded;
}

before(async () => {
  for (const p of phrases) {
    const v = await voiceText(p, A);
    rec.add(p, await resample(v.samples, v.sampleRate, 16000), v.words);
  }
});

test('recognizes phrases it voiced, in another voice, through 8 kHz mu-law', async () => {
  for (const p of phrases) {
    assert.equal(rec.recognize(await heard(p, A))?.text, p, `${p} clean`);
    assert.equal(rec.recognize(await heard(p, B, 8000, true))?.text, p, `${p} other voice, mu-law`);
  }
});

test('word timings follow the audio: words in order, inside the speech', async () => {
  const r = rec.recognize(await heard('أريد معرفة رصيد حسابي', A))!;
  assert.deepEqual(r.words.map((w) => w.word), ['أريد', 'معرفة', 'رصيد', 'حسابي']);
  assert.ok(r.words[0]!.start >= 0.2 && r.words[0]!.start <= 0.35, `speech starts at 0.25 s, got ${r.words[0]!.start}`);
  for (let i = 1; i < r.words.length; i++) assert.ok(r.words[i]!.start >= r.words[i - 1]!.end - 0.02);
});

test('speech it never voiced gives nothing rather than a guess', async () => {
  for (const other of ['الطقس جميل اليوم', 'هل يمكنني فتح حساب جديد', 'السلام عليكم']) {
    assert.equal(rec.recognize(await heard(other, A)), undefined, other);
  }
  assert.equal(rec.recognize(new Int16Array(16000)), undefined, 'silence');
});

test('partial audio yields only the words already spoken', async () => {
  const v = await voiceText('أريد معرفة رصيد حسابي', A);
  const cut = v.words[1]!.end + 0.1; // into the next word, far from its end
  const part = await resample(v.samples.subarray(0, Math.round(cut * v.sampleRate)), v.sampleRate, 16000);
  const r = rec.recognize(part, true);
  assert.equal(r?.text, 'أريد معرفة');
});
