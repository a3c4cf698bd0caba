/**
 * The energy detector (`interruption.localVad: 'energy'`) on real recordings through an 8 kHz
 * μ-law line, on the audio's own clock (no sockets, no timing): what it would cost as a default.
 *
 * - false starts on noise alone (the shared boiler and washing-machine recordings, at their
 *   recorded level and louder), per minute: each is a false barge-in that pauses the agent until
 *   the recognizer's words fail to come;
 * - false starts on the agent's own voice coming back down the line (echo: real Arabic speech
 *   attenuated by an echo return loss), per minute of agent speech;
 * - and what it gains: on the labelled speech-in-silence and speech-in-noise recordings, how soon
 *   after each labelled onset it hears the speech (a start at onset + `minSpeechMs` is the best
 *   it can do), and the onsets it misses.
 *
 * Usage: npm run bench -- energy-vad [minSpeechMs=20,40,80] [level=500]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulaw } from '../src/audio/g711.ts';
import { resample } from '../src/audio/resample.ts';
import { decodeWav } from '../src/audio/wav.ts';
import { EnergyVad, ENERGY_VAD_DEFAULTS } from '../src/pipeline/energy-vad.ts';
import type { Clock } from '../src/transport/clock.ts';
import { audioDir } from './amd-set.ts';
import { round, table, type BenchArgs } from './harness.ts';

const RATE = 8000;
const FRAME = RATE / 50;
/** Labelled speech in vad/speech_*_16k.wav (docs of the shared recordings), seconds. */
const ONSETS: [number, number][] = [
  [1.0, 1.417],
  [3.417, 3.928],
  [4.928, 5.396],
];

/** Speech starts the detector hears in `pcm` (8 kHz), in seconds of the audio. */
export function energyStarts(pcm: Int16Array, level: number, minSpeechMs: number): number[] {
  let t = 0;
  const clock: Clock = { speed: 1, now: () => t, sleep: async () => {}, after: () => () => {} };
  const vad = new EnergyVad(clock, { level, minSpeechMs });
  const starts: number[] = [];
  vad.speech$.subscribe((s) => s.type === 'start' && starts.push(s.at / 1000));
  for (let i = 0; i + FRAME <= pcm.length; i += FRAME) {
    t = ((i + FRAME) / RATE) * 1000;
    vad.push({ samples: pcm.subarray(i, i + FRAME), sampleRate: RATE, time: t });
  }
  vad.close();
  return starts;
}

/** Through a phone line: μ-law encoded and decoded. */
const line = (pcm: Int16Array) => mulaw.decode(mulaw.encode(pcm));
const gain = (pcm: Int16Array, db: number) => {
  const g = 10 ** (db / 20);
  return Int16Array.from(pcm, (s) => Math.max(-32768, Math.min(32767, Math.round(s * g))));
};

async function load8k(path: string): Promise<Int16Array> {
  const w = decodeWav(readFileSync(path));
  return resample(w.samples, w.sampleRate, RATE);
}

export async function energyVadAb({ rest }: BenchArgs): Promise<Record<string, unknown>> {
  const named = Object.fromEntries(rest.filter((a) => a.includes('=')).map((a) => a.split('=') as [string, string]));
  const mins = (named.minSpeechMs ?? '20,40,80').split(',').map(Number);
  const level = Number(named.level ?? ENERGY_VAD_DEFAULTS.level);
  if (mins.some((m) => !(m > 0)) || !(level > 0)) throw new Error('minSpeechMs= is a list of ms above 0 and level= a mean sample above 0');
  const dir = audioDir() ?? '(no shared/audio folder above the repository)';
  if (!existsSync(join(dir, 'noise')) || !existsSync(join(dir, 'vad'))) throw new Error(`the energy-vad bench needs the real recordings (noise/, vad/, ar-speech-commands/) in ${dir}: set HIWAR_AUDIO_DIR`);
  const noises = await Promise.all(readdirSync(join(dir, 'noise')).filter((f) => f.endsWith('.wav')).sort().map(async (f) => ({ name: f.replace('.wav', ''), pcm: await load8k(join(dir, 'noise', f)) })));
  // The agent's voice: every recorded word of two speakers, 300 ms apart, as a reply's audio.
  const clips = readdirSync(join(dir, 'ar-speech-commands')).filter((f) => /_(00000003|00000014)\.wav$/.test(f)).sort();
  const words = await Promise.all(clips.map((f) => load8k(join(dir, 'ar-speech-commands', f))));
  const gap = new Int16Array((RATE * 300) / 1000);
  const voice = Int16Array.from(words.flatMap((w) => [...w, ...gap]));
  const labelled = await Promise.all(['speech_sil_16k', 'speech_noisy_16k'].map(async (n) => ({ name: n, pcm: line(await load8k(join(dir, 'vad', `${n}.wav`))) })));
  const perMin = (n: number, pcm: Int16Array) => round((n / (pcm.length / RATE)) * 60, 1);

  const rows = mins.map((minSpeechMs) => {
    const noise = noises.flatMap(({ name, pcm }) => [0, 6, 12].map((db) => ({ name: `${name} +${db} dB`, perMin: perMin(energyStarts(line(gain(pcm, db)), level, minSpeechMs).length, pcm) })));
    const echo = [30, 24, 18, 12, 6].map((erl) => ({ erlDb: erl, perMin: perMin(energyStarts(line(gain(voice, -erl)), level, minSpeechMs).length, voice) }));
    const onsets = labelled.map(({ name, pcm }) => {
      const starts = energyStarts(pcm, level, minSpeechMs);
      const heard = ONSETS.map(([on, off]) => starts.find((s) => s >= on && s <= off + 0.3));
      const falseStarts = starts.filter((s) => !ONSETS.some(([on, off]) => s >= on && s <= off + 0.3)).length;
      return { name, afterOnsetMs: heard.map((s, i) => (s === undefined ? null : round((s - ONSETS[i]![0]) * 1000, 0))), missed: heard.filter((s) => s === undefined).length, falseStarts };
    });
    return { minSpeechMs, noise, echo, onsets };
  });
  for (const r of rows) {
    table(`energy detector, level ${level}, ${r.minSpeechMs} ms of loud audio to start (8 kHz μ-law line)`, [
      ...r.noise.map((n): [string, string, string] => [`false starts on noise alone: ${n.name}`, `${n.perMin} / min`, '0']),
      ...r.echo.map((e): [string, string, string] => [`false starts on the agent's own voice, echo ${e.erlDb} dB down`, `${e.perMin} / min`, '0']),
      ...r.onsets.map((o): [string, string, string] => [`${o.name}: ms after each labelled onset (missed, false)`, `${o.afterOnsetMs.map((x) => x ?? '–').join(', ')} (${o.missed}, ${o.falseStarts})`, `≥ ${r.minSpeechMs} each`]),
    ]);
  }
  return { bench: 'energy-vad', level, rows };
}
