/**
 * The answering-machine detector's labelled set, built reproducibly into a cache directory
 * (`$HIWAR_CACHE/amd-set`, default `~/.cache/hiwar/amd-set`; about 5 MB, so not committed):
 * people answering ("ألو" and short answers, voiced by espeak-ng and the real recordings of the
 * Arabic Speech Commands set), voicemail greetings with and without a beep, and carrier
 * announcements in Arabic and English (some after the special information tones), each mixed
 * with a real line-noise recording and sent through 8 kHz G.711 μ-law as a phone line does.
 *
 * The transcripts are the sandbox recognizer's (src/sandbox/engines/recognizer.ts), run on the
 * noisy μ-law audio of each sentence as /listen would hear it, taught the set's phrases in the
 * voice that says them (as a sandbox phrasebook is); what it misses is missing from the
 * transcript. They arrive at the end of the sentence plus the recognizer's endpointing.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { mulaw } from '../src/audio/g711.ts';
import { concatPcm, mixAtSnr, silence } from '../src/audio/pcm.ts';
import { resample } from '../src/audio/resample.ts';
import { decodeWav } from '../src/audio/wav.ts';
import type { AmdClass } from '../src/amd/index.ts';
import { builtInVoices } from '../src/sandbox/catalogue.ts';
import { voiceText, type EspeakVoice } from '../src/sandbox/engines/espeak.ts';
import { Recognizer } from '../src/sandbox/engines/recognizer.ts';
import { recordingsDir } from '../test/helpers/recordings.ts';

const RATE = 8000;
/** The set's recipe version: a change to the recipes below must change it (the cache is rebuilt). */
const VERSION = 4;
/** /listen's endpointing plus a little processing: when a final arrives after a sentence ends. */
const FINAL_AFTER_MS = 700;

export interface AmdRecording {
  id: string;
  label: Exclude<AmdClass, 'uncertain'>;
  source: 'espeak' | 'real';
  noise: string;
  snrDb: number;
  /** 8 kHz PCM as decoded from μ-law. */
  samples: Int16Array;
  /** Recognizer finals: text and ms from the start. */
  transcripts: { text: string; at: number }[];
  /** Where the beep ends (ms), for voicemail with a beep. */
  beepEndMs?: number;
  /** Where the first sound starts (ms). */
  answerMs: number;
}

type Part = { say: string; voice: EspeakVoice } | { clip: string } | { gap: number } | { tone: number; ms: number };
interface Recipe {
  id: string;
  label: AmdRecording['label'];
  parts: Part[];
}

const AR = builtInVoices('').map((v) => v.espeak);
const EN: EspeakVoice[] = [{ name: 'en-us', pitch: 50, wpm: 165 }, { name: 'en-gb+f3', pitch: 60, wpm: 160 }, { name: 'en-us+m3', pitch: 40, wpm: 170 }];
const SIT: Part[] = [{ tone: 914, ms: 330 }, { tone: 1371, ms: 330 }, { tone: 1777, ms: 330 }, { gap: 300 }];

const HUMAN_SAID = ['ألو', 'ألو؟', 'نعم؟', 'ألو، نعم', 'السلام عليكم', 'مرحبا، مين معي؟'];
const VOICEMAIL_AR = [
  ['مرحبًا، لقد وصلت إلى البريد الصوتي لأحمد.', 'أنا غير متاح حاليًا.', 'الرجاء ترك رسالة بعد الصافرة.'],
  ['أهلًا بك، لا أستطيع الرد على مكالمتك الآن.', 'اترك رسالتك بعد سماع الصافرة وسأعاود الاتصال بك.'],
  ['السلام عليكم، معك سارة من شركة النور.', 'لا أستطيع الرد الآن، سأتصل بك لاحقًا إن شاء الله.'],
];
const VOICEMAIL_EN = [
  ['Hi, you have reached John.', 'I cannot take your call right now.', 'Please leave a message after the tone.'],
  ['The person you are calling is not available.', 'Please leave your message after the beep.'],
];
const CARRIER_AR = [
  ['الرقم المطلوب مغلق أو خارج نطاق التغطية،', 'يرجى المحاولة لاحقًا.'],
  ['الهاتف المطلوب لا يمكن الوصول إليه حاليًا،', 'الرجاء المعاودة في وقت لاحق.'],
  ['عذرًا، الرقم المطلوب غير موجود.'],
];
const CARRIER_EN = [['The subscriber you have dialled is not available.', 'Please try again later.'], ['The number you have dialled is switched off.']];
const BEEPS: (Part | undefined)[] = [{ tone: 1000, ms: 500 }, { tone: 1400, ms: 300 }, undefined, { tone: 850, ms: 400 }, { tone: 440, ms: 600 }];

/** A seeded random source: the set is the same on every machine. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function recipes(clips: string[]): Recipe[] {
  const out: Recipe[] = [];
  const rnd = seeded(25);
  const gap = (lo: number, hi: number): Part => ({ gap: Math.round(lo + (hi - lo) * rnd()) });
  // People: a word (or two) after picking up, then waiting for the caller to speak.
  HUMAN_SAID.forEach((say, i) => {
    for (const k of [0, 1]) out.push({ id: `human-espeak-${i}-${k}`, label: 'human', parts: [{ say, voice: AR[(i + 2 * k) % AR.length]! }, { gap: 4000 }] });
  });
  const speakers = [...new Set(clips.map((c) => c.split('_')[1]!.replace('.wav', '')))];
  speakers.forEach((sp, i) => {
    const clip = (word: string) => ({ clip: `${word}_${sp}.wav` });
    out.push({ id: `human-real-yes-${sp}`, label: 'human', parts: [clip('yes'), { gap: 4000 }] });
    out.push({ id: `human-real-yes-yes-${sp}`, label: 'human', parts: [clip('yes'), gap(200, 450), clip('yes'), { gap: 4000 }] });
    out.push({ id: `human-real-${i % 2 ? 'ok' : 'no'}-${sp}`, label: 'human', parts: [clip(i % 2 ? 'ok' : 'no'), { gap: 2500 }, clip('yes'), { gap: 3000 }] });
  });
  // Voicemail: a greeting of sentences with short pauses, a beep or none, then the line records.
  const greeting = (lines: string[], voice: EspeakVoice): Part[] => lines.flatMap((say, j) => (j ? [gap(250, 550), { say, voice }] : [{ say, voice }]));
  let b = 0;
  VOICEMAIL_AR.forEach((lines, i) => {
    for (const v of [i, i + 2]) {
      const beep = BEEPS[b++ % BEEPS.length];
      out.push({ id: `voicemail-ar-${i}-${v}${beep ? '-beep' : ''}`, label: 'machine-voicemail', parts: [...greeting(lines, AR[v % AR.length]!), ...(beep ? [gap(300, 800), beep] : []), { gap: 3000 }] });
    }
  });
  VOICEMAIL_EN.forEach((lines, i) => {
    for (const v of [0, 1, 2]) {
      const beep = BEEPS[b++ % BEEPS.length];
      out.push({ id: `voicemail-en-${i}-${v}${beep ? '-beep' : ''}`, label: 'machine-voicemail', parts: [...greeting(lines, EN[(i + v) % EN.length]!), ...(beep ? [gap(300, 800), beep] : []), { gap: 3000 }] });
    }
  });
  // Carrier announcements, some after the special information tones, some said twice.
  CARRIER_AR.forEach((lines, i) => {
    for (const v of [0, 1]) {
      const sit = (i + v) % 2 === 0;
      out.push({ id: `carrier-ar-${i}-${v}${sit ? '-sit' : ''}`, label: 'machine-unavailable', parts: [...(sit ? SIT : []), ...greeting(lines, AR[(i + v + 1) % AR.length]!), gap(500, 900), ...greeting(lines, AR[(i + v + 1) % AR.length]!), { gap: 1500 }] });
    }
  });
  CARRIER_EN.forEach((lines, i) => {
    for (const v of [0, 1]) {
      const sit = v === 1;
      out.push({ id: `carrier-en-${i}-${v}${sit ? '-sit' : ''}`, label: 'machine-unavailable', parts: [...(sit ? SIT : []), ...greeting(lines, EN[(i + v) % EN.length]!), { gap: 1500 }] });
    }
  });
  return out;
}

function tone(freq: number, ms: number): Int16Array {
  const n = Math.round((ms * RATE) / 1000);
  const ramp = Math.round(0.005 * RATE); // 5 ms edges, as a real beep has
  return Int16Array.from({ length: n }, (_, i) => Math.round(7000 * Math.min(1, i / ramp, (n - 1 - i) / ramp) * Math.sin((2 * Math.PI * freq * i) / RATE)));
}

/**
 * The shared folder of real recordings, by the tests' rule (test/helpers/recordings.ts):
 * HIWAR_AUDIO_DIR, else a `shared/audio` folder above the repository, also from a git worktree.
 * Undefined when there is none.
 */
export function audioDir(): string | undefined {
  return recordingsDir();
}

async function render(recipe: Recipe, dir: string, rec: Recognizer, rnd: () => number, noises: Record<string, Int16Array>) {
  const pieces: Int16Array[] = [];
  const sentences: { voice: string; text?: string; start: number; end: number; audio: Int16Array }[] = [];
  let t = 0;
  const lead = silence(0.3 + 0.9 * rnd(), RATE); // answered → first sound
  pieces.push(lead);
  t += lead.length;
  const answerMs = (t / RATE) * 1000;
  let beepEndMs: number | undefined;
  for (const p of recipe.parts) {
    let pcm: Int16Array;
    if ('gap' in p) pcm = silence(p.gap / 1000, RATE);
    else if ('tone' in p) {
      pcm = tone(p.tone, p.ms);
      beepEndMs = ((t + pcm.length) / RATE) * 1000;
    } else if ('clip' in p) {
      const wav = decodeWav(readFileSync(join(dir, 'ar-speech-commands', p.clip)));
      pcm = await resample(wav.samples, wav.sampleRate, RATE);
    } else {
      const v = await voiceText(p.say, p.voice);
      pcm = await resample(v.samples, v.sampleRate, RATE);
      sentences.push({ voice: p.voice.name, text: p.say, start: t, end: t + pcm.length, audio: pcm });
    }
    pieces.push(pcm);
    t += pcm.length;
  }
  const clean = concatPcm(pieces);
  const names = Object.keys(noises).sort();
  const noise = names[Math.floor(rnd() * names.length)]!;
  const snrDb = [20, 15, 10][Math.floor(rnd() * 3)]!;
  const noiseAudio = noises[noise]!;
  const offset = Math.floor(rnd() * (noiseAudio.length - clean.length));
  const line = mulaw.decode(mulaw.encode(mixAtSnr(clean, noiseAudio.subarray(Math.max(0, offset)), snrDb)));
  // The recognizer hears each sentence as /listen would: the line's audio, at 16 kHz.
  const transcripts: AmdRecording['transcripts'] = [];
  for (const s of sentences) {
    const from = Math.max(0, s.start - 0.1 * RATE);
    const heard = rec.recognize(await resample(line.slice(from, Math.min(line.length, s.end + 0.3 * RATE)), RATE, 16000));
    if (heard?.text) transcripts.push({ text: heard.text, at: Math.round((s.end / RATE) * 1000 + FINAL_AFTER_MS) });
  }
  return { line, noise, snrDb, transcripts, beepEndMs: recipe.label === 'machine-voicemail' ? beepEndMs : undefined, answerMs };
}

/** A recording's own seed: each is made the same whether or not the others are. */
const seedOf = (id: string) => [...id].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261);

/**
 * The set, each recording built into the cache on first use (or when the recipes changed);
 * `quick`: every third recording (only those are built).
 */
export async function amdSet(quick: boolean): Promise<{ recordings: AmdRecording[]; built: number; dir: string }> {
  const audio = audioDir();
  if (!audio) throw new Error('the AMD set needs the real recordings (ar-speech-commands/ and noise/): no shared/audio folder above the repository; set HIWAR_AUDIO_DIR (docs/amd.md#the-labelled-set)');
  const clipsDir = join(audio, 'ar-speech-commands');
  if (!existsSync(clipsDir) || !existsSync(join(audio, 'noise'))) {
    throw new Error(`the AMD set needs the real recordings (ar-speech-commands/ and noise/) in ${audio}: set HIWAR_AUDIO_DIR (docs/amd.md#the-labelled-set)`);
  }
  const cache = join(process.env.HIWAR_CACHE ?? join(homedir(), '.cache', 'hiwar'), 'amd-set');
  const manifest = join(cache, 'manifest.json');
  type Entry = Omit<AmdRecording, 'samples'>;
  const read = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: number; recordings: Record<string, Entry> }) : undefined;
  const stored = read?.version === VERSION ? read : { version: VERSION, recordings: {} as Record<string, Entry> };
  const all = recipes(readdirSync(clipsDir));
  const picked = quick ? all.filter((_, i) => i % 3 === 0) : all;
  const missing = picked.filter((r) => !stored.recordings[r.id] || !existsSync(join(cache, `${r.id}.ulaw`)));
  if (missing.length) {
    mkdirSync(cache, { recursive: true });
    const noises: Record<string, Int16Array> = {};
    for (const f of readdirSync(join(audio, 'noise')).filter((n) => n.endsWith('.wav'))) {
      const w = decodeWav(readFileSync(join(audio, 'noise', f)));
      noises[f.replace('.wav', '')] = await resample(w.samples, w.sampleRate, RATE);
    }
    // The whole phrasebook, whichever recordings are built: every recording is heard by the same
    // recognizer, taught each phrase in its voice.
    const rec = new Recognizer();
    for (const p of all.flatMap((r) => r.parts)) {
      if (!('say' in p)) continue;
      const v = await voiceText(p.say, p.voice);
      rec.add(p.say, await resample(v.samples, v.sampleRate, 16000), v.words, `${p.voice.name}/${p.voice.pitch}`);
    }
    for (const r of missing) {
      const out = await render(r, audio, rec, seeded(seedOf(r.id)), noises);
      writeFileSync(join(cache, `${r.id}.ulaw`), mulaw.encode(out.line));
      const source = r.parts.some((p) => 'clip' in p) ? 'real' : 'espeak';
      stored.recordings[r.id] = { id: r.id, label: r.label, source, noise: out.noise, snrDb: out.snrDb, transcripts: out.transcripts, beepEndMs: out.beepEndMs, answerMs: out.answerMs };
      writeFileSync(manifest, JSON.stringify(stored, null, 1));
    }
  }
  const recordings = picked.map((r) => ({ ...stored.recordings[r.id]!, samples: mulaw.decode(readFileSync(join(cache, `${r.id}.ulaw`))) }));
  return { recordings, built: missing.length, dir: cache };
}
