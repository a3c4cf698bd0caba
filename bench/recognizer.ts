/**
 * The sandbox recognizer's accuracy and speed: phrases voiced by the sandbox, heard back
 * clean, through 8 kHz mu-law, and with real recorded noise mixed in at 10 dB SNR; then the
 * spoken-word vocabulary on real people's recordings (bench/recognizer-words.ts).
 * Usage: npm run bench -- recognizer   (the noise conditions and the human rows need HIWAR_NOISE_DIR
 * and HIWAR_AUDIO_DIR: docs/sandbox.md#real-recordings-for-the-recognizer-bench)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulaw } from '../src/audio/g711.ts';
import { mixAtSnr } from '../src/audio/pcm.ts';
import { createResampler, resample } from '../src/audio/resample.ts';
import { decodeWav } from '../src/audio/wav.ts';
import { builtInVoices } from '../src/sandbox/catalogue.ts';
import { voiceText } from '../src/sandbox/engines/espeak.ts';
import { Recognizer } from '../src/sandbox/engines/recognizer.ts';
import { VOCABULARY_DEFAULTS } from '../src/sandbox/engines/vocabulary.ts';
import { wordBench } from './recognizer-words.ts';
import { recordingsDir } from '../test/helpers/recordings.ts';

const PHRASES = [
  'مرحبا بكم في خدمة العملاء', 'أريد معرفة رصيد حسابي', 'أرجو إيقاف بطاقتي فورا', 'متى يفتح الفرع غدا',
  'أريد التحدث مع موظف', 'نعم', 'لا شكرا', 'كم رصيدي من فضلك', 'بطاقتي ضاعت أمس', 'شكرا جزيلا لك',
  'أريد تحويل مبلغ إلى حساب آخر', 'ما هي ساعات عمل الفرع', 'لقد سرقت بطاقتي', 'هل يمكنني فتح حساب جديد',
  'أريد تغيير رقم هاتفي', 'نعم هذا صحيح', 'كلا ليس هذا ما أريد', 'أين أقرب صراف آلي', 'أريد إلغاء العملية', 'مع السلامة',
];
const UNKNOWN = ['الطقس جميل اليوم', 'السلام عليكم ورحمة الله', 'كم الساعة الآن', 'أحب القهوة العربية', 'أين المطار', 'كلا', 'أريد معرفة الرصيد'];
// (لا was here, as part of لا شكرا: it is now a word the recognizer hears in anyone's voice.)

// The sandbox remembers a phrase in the voice that spoke it: every phrase is voiced in every
// catalogue voice, as the phrasebook does at start.
const voices = builtInVoices('');
const speaker = voices[0]!.espeak;
const callers = voices.map((v) => v.espeak);
const rec = new Recognizer();
for (const [i, voice] of callers.entries()) {
  for (const p of PHRASES) {
    const v = await voiceText(p, voice);
    rec.add(p, await resample(v.samples, v.sampleRate, 16000), v.words, String(i));
  }
}

// Real noise recordings are not in the repository (docs/sandbox.md#real-recordings-for-the-recognizer-bench).
// HIWAR_AUDIO_DIR, else a shared/audio folder above the repository (also from a git worktree).
const audioDir = recordingsDir() ?? '(no shared/audio folder above the repository)';
const noiseDir = process.env.HIWAR_NOISE_DIR ?? join(audioDir, 'noise');
const noises = existsSync(noiseDir) ? readdirSync(noiseDir).filter((f) => f.endsWith('.wav')) : [];
if (!noises.length) console.log(`(no noise recordings in ${noiseDir}: noise conditions skipped; set HIWAR_NOISE_DIR)`);

/** 8 kHz audio brought to 16 kHz as the sandbox's `/listen` does (the polyphase filter, streaming). */
async function as16kByListen(s8: Int16Array): Promise<Int16Array> {
  const r = await createResampler(8000, 16000);
  const out = r.push(s8);
  r.close();
  return out;
}

type Condition = { name: string; make: (pcm22: Int16Array, rate: number) => Promise<Int16Array> };
const pad = (s: Int16Array) => {
  const out = new Int16Array(s.length + 8000);
  out.set(s, 3200);
  return out;
};
const conditions: Condition[] = [
  { name: 'clean 16 kHz', make: async (s, r) => pad(await resample(s, r, 16000)) },
  { name: '8 kHz mu-law', make: async (s, r) => pad(await as16kByListen(mulaw.decode(mulaw.encode(await resample(s, r, 8000))))) },
  ...noises.map((n) => {
    const noise = decodeWav(readFileSync(join(noiseDir, n))).samples;
    return { name: `noise ${n.replace('.wav', '')} 10 dB`, make: async (s: Int16Array, r: number) => mixAtSnr(pad(await resample(s, r, 16000)), noise, 10) };
  }),
];

const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(`load ${load()}`);
console.log(`${PHRASES.length} known phrases x ${callers.length} voices; ${UNKNOWN.length} unknown phrases`);
for (const c of conditions) {
  let correct = 0;
  let total = 0;
  let audioS = 0;
  let cpuMs = 0;
  for (const voice of callers) {
    for (const p of PHRASES) {
      const v = await voiceText(p, voice);
      const heard = await c.make(v.samples, v.sampleRate);
      const t0 = performance.now();
      const r = rec.recognize(heard);
      cpuMs += performance.now() - t0;
      audioS += heard.length / 16000;
      total++;
      if (r?.text === p) correct++;
    }
  }
  let rejected = 0;
  for (const p of UNKNOWN) {
    const v = await voiceText(p, speaker);
    if (!rec.recognize(await c.make(v.samples, v.sampleRate))) rejected++;
  }
  console.log(
    `${c.name.padEnd(28)} accuracy ${((100 * correct) / total).toFixed(1)}% (${correct}/${total})  ` +
      `unknown rejected ${rejected}/${UNKNOWN.length}  real-time factor ${(cpuMs / 1000 / audioS).toFixed(3)}`,
  );
}

// Words in anyone's voice: the recordings of six people, each held out in turn.
const speechDir = join(audioDir, 'ar-speech-commands');
if (!existsSync(speechDir)) console.log(`(no recordings in ${speechDir}: the human rows skipped; set HIWAR_AUDIO_DIR)`);
else {
  console.log(`\nspoken words, leave-one-speaker-out over the recordings (load ${load()})`);
  const { rows, weightRows, weightChoices, nestedRows, choices, chosen, curve, sweep, cpuUsPerS, trainS } = await wordBench(speechDir, noiseDir, { casesFile: fileURLToPath(new URL('../.tmp/word-cases.json', import.meta.url)) });
  const pct = (r: { right: number; total: number }) => `${((100 * r.right) / r.total).toFixed(1)}%`;
  const print = (rs: typeof rows) => {
    for (const r of rs) console.log(`  ${r.condition.padEnd(44)} ${pct(r)} (${r.right}/${r.total})  said nothing ${r.silent}`);
  };
  const { modelWeight, minScore } = VOCABULARY_DEFAULTS;
  console.log(`at the shipped settings (classifier weight ${modelWeight.wide} whole band, ${modelWeight.phone} phone; threshold ${minScore.wide}, ${minScore.phone})`);
  print(rows);
  const show = (cs: typeof choices) => console.log(`  ${cs.map((c) => `${c.fold}: ${c.settings.weight.wide}/${c.settings.weight.phone} at ${c.settings.threshold.wide}/${c.settings.threshold.phone}`).join(', ')}`);
  console.log('each fold\'s weights (whole band/phone) chosen on the other five speakers (the most words heard with no threshold), at the shipped thresholds');
  show(weightChoices);
  print(weightRows);
  console.log('and each fold\'s thresholds too: those that reject 90 % of the other five\'s people\'s unknown words');
  show(choices);
  print(nestedRows);
  console.log(`chosen the same way on all six: weight ${chosen.weight.wide} whole band, ${chosen.weight.phone} phone (VOCABULARY_DEFAULTS.modelWeight); for 90 % of people's unknown words rejected, threshold ${chosen.threshold.wide}, ${chosen.threshold.phone}`);
  console.log('the trade-off at the shipped weights: threshold (both bands), then the rows in the same order');
  for (const c of curve) console.log(`  ${c.threshold.toFixed(2)}  ${c.rows.map(pct).join('  ')}`);
  console.log('no threshold (the best word, whatever its score), per classifier weight: 16 kHz, phone line');
  for (const w of sweep) console.log(`  ${w.weight.toFixed(2)}  ${w.rows.map((r) => `${pct(r)} (${r.right})`).join('  ')}`);
  console.log(`cost ${cpuUsPerS.toFixed(0)} µs of CPU per second of audio at 16 kHz; the training set and the folds' trainings took ${trainS.toFixed(0)} s (load ${load()})`);
}
