/**
 * The energy detector (`interruption.localVad: 'energy'`) on real recordings through an 8 kHz
 * μ-law line, on the audio's own clock (no sockets, no timing): the fixed level of before beside
 * the adaptive detector (noise floor, and the agent's own voice as an echo reference).
 *
 * - false starts on noise alone (the shared boiler and washing-machine recordings, at their
 *   recorded level and louder), per minute: each is a false barge-in that pauses the agent until
 *   the recognizer's words fail to come;
 * - false starts on the agent's own voice coming back down the line (echo: real Arabic speech
 *   attenuated by an echo return loss, `ECHO_DELAY_MS` after it was written), per minute of
 *   agent speech;
 * - and what it gains: on the labelled speech-in-silence and speech-in-noise recordings, how soon
 *   after each labelled onset it hears the speech (a start at onset + `minSpeechMs` is the best
 *   it can do), and the onsets it misses; then the same speech in silence over the agent's echo
 *   18 dB down (a barge-in while the agent talks).
 *
 * Usage: npm run bench -- energy-vad [option=value …] (options of the adaptive detector, e.g.
 * marginDb=12 minSpeechMs=40 echoReturnLossDb=12)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulaw } from '../src/audio/g711.ts';
import { resample } from '../src/audio/resample.ts';
import { decodeWav } from '../src/audio/wav.ts';
import { EnergyVad, ENERGY_VAD_DEFAULTS, type EnergyVadOptions } from '../src/pipeline/energy-vad.ts';
import type { Clock } from '../src/transport/clock.ts';
import { audioDir } from './amd-set.ts';
import { round, table, type BenchArgs } from './harness.ts';

const RATE = 8000;
const FRAME = RATE / 50;
/** From the agent's frame being written to its echo in the caller's audio: playout lead and the line. */
const ECHO_DELAY_MS = 300;
/** Labelled speech in vad/speech_*_16k.wav (docs of the shared recordings), seconds. */
const ONSETS: [number, number][] = [
  [1.0, 1.417],
  [3.417, 3.928],
  [4.928, 5.396],
];

/**
 * Speech starts the detector hears in `pcm` (8 kHz), in seconds of the audio. With `agent`, the
 * agent's audio is told to the detector frame by frame, `ECHO_DELAY_MS` before it shows in `pcm`.
 */
export function energyStarts(pcm: Int16Array, opts: EnergyVadOptions, agent?: Int16Array): number[] {
  let t = 0;
  const clock: Clock = { speed: 1, now: () => t, sleep: async () => {}, after: () => () => {} };
  const vad = new EnergyVad(clock, opts);
  const starts: number[] = [];
  vad.speech$.subscribe((s) => s.type === 'start' && starts.push(s.at / 1000));
  const lead = (RATE * ECHO_DELAY_MS) / 1000;
  for (let i = 0; i + FRAME <= pcm.length; i += FRAME) {
    t = ((i + FRAME) / RATE) * 1000;
    if (agent && i >= lead && i - lead + FRAME <= agent.length) vad.playing({ samples: agent.subarray(i - lead, i - lead + FRAME), sampleRate: RATE, time: t });
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
/** `a` with `b` added (the length of `a`). */
const mix = (a: Int16Array, b: Int16Array) => Int16Array.from(a, (s, i) => Math.max(-32768, Math.min(32767, s + (b[i] ?? 0))));
/** `pcm` later by `ms` (silence first). */
const delay = (pcm: Int16Array, ms: number) => {
  const out = new Int16Array(pcm.length + (RATE * ms) / 1000);
  out.set(pcm, (RATE * ms) / 1000);
  return out;
};

async function load8k(path: string): Promise<Int16Array> {
  const w = decodeWav(readFileSync(path));
  return resample(w.samples, w.sampleRate, RATE);
}

/** `name=value` arguments as the adaptive detector's options (numbers, or `adaptive=false`). */
function parseOptions(rest: string[]): EnergyVadOptions {
  const opts: Record<string, number | boolean> = {};
  for (const a of rest.filter((x) => x.includes('='))) {
    const [k, v] = a.split('=') as [string, string];
    if (!(k in ENERGY_VAD_DEFAULTS)) throw new Error(`energy-vad: unknown option ${k} (options: ${Object.keys(ENERGY_VAD_DEFAULTS).join(', ')})`);
    opts[k] = k === 'adaptive' ? v !== 'false' : Number(v);
    if (opts[k] !== opts[k]) throw new Error(`energy-vad: ${k}= takes a number, got ${v}`);
  }
  return opts;
}

export async function energyVadAb({ rest }: BenchArgs): Promise<Record<string, unknown>> {
  const adaptive = parseOptions(rest);
  const dir = audioDir() ?? '(no shared/audio folder above the repository)';
  if (!existsSync(join(dir, 'noise')) || !existsSync(join(dir, 'vad'))) throw new Error(`the energy-vad bench needs the real recordings (noise/, vad/, ar-speech-commands/) in ${dir}: set HIWAR_AUDIO_DIR`);
  const noises = await Promise.all(readdirSync(join(dir, 'noise')).filter((f) => f.endsWith('.wav')).sort().map(async (f) => ({ name: f.replace('.wav', ''), pcm: await load8k(join(dir, 'noise', f)) })));
  // The agent's voice: every recorded word of two speakers, 300 ms apart, as a reply's audio.
  const clips = readdirSync(join(dir, 'ar-speech-commands')).filter((f) => /_(00000003|00000014)\.wav$/.test(f)).sort();
  const words = await Promise.all(clips.map((f) => load8k(join(dir, 'ar-speech-commands', f))));
  const gap = new Int16Array((RATE * 300) / 1000);
  const voice = Int16Array.from(words.flatMap((w) => [...w, ...gap]));
  const labelled = await Promise.all(['speech_sil_16k', 'speech_noisy_16k'].map(async (n) => ({ name: n, pcm: await load8k(join(dir, 'vad', `${n}.wav`)) })));
  // A barge-in while the agent talks: the speech in silence over the agent's echo 18 dB down.
  const overEcho = { name: 'speech_sil_16k over echo 18 dB down', pcm: mix(labelled[0]!.pcm, delay(gain(voice, -18), ECHO_DELAY_MS)), agent: voice };
  const perMin = (n: number, pcm: Int16Array) => round((n / (pcm.length / RATE)) * 60, 1);

  const detectors: { name: string; opts: EnergyVadOptions; reference: boolean }[] = [
    { name: 'fixed level (before)', opts: { adaptive: false }, reference: false },
    { name: 'noise floor', opts: { ...adaptive, adaptive: adaptive.adaptive ?? true }, reference: false },
    { name: 'noise floor + echo reference', opts: { ...adaptive, adaptive: adaptive.adaptive ?? true }, reference: true },
  ];
  const rows = detectors.map(({ name, opts, reference }) => {
    const o = { ...ENERGY_VAD_DEFAULTS, ...opts };
    const noise = noises.flatMap(({ name, pcm }) => [0, 6, 12].map((db) => ({ name: `${name} +${db} dB`, perMin: perMin(energyStarts(line(gain(pcm, db)), o).length, pcm) })));
    const echoed = (erl: number) => line(delay(gain(voice, -erl), ECHO_DELAY_MS));
    const echo = [30, 24, 18, 12, 6].map((erl) => ({ erlDb: erl, perMin: perMin(energyStarts(echoed(erl), o, reference ? voice : undefined).length, voice) }));
    const onsets = [...labelled, ...(reference ? [overEcho] : [])].map(({ name, pcm, ...rest }) => {
      const agent = 'agent' in rest ? (rest.agent as Int16Array) : undefined;
      const starts = energyStarts(line(pcm), o, agent);
      const heard = ONSETS.map(([on, off]) => starts.find((s) => s >= on && s <= off + 0.3));
      const falseStarts = starts.filter((s) => !ONSETS.some(([on, off]) => s >= on && s <= off + 0.3)).length;
      return { name, afterOnsetMs: heard.map((s, i) => (s === undefined ? null : round((s - ONSETS[i]![0]) * 1000, 0))), missed: heard.filter((s) => s === undefined).length, falseStarts };
    });
    return { detector: name, options: o, noise, echo, onsets };
  });
  for (const r of rows) {
    const o = r.options;
    table(`energy detector: ${r.detector} (level ${o.level}, ${o.minSpeechMs} ms to start${o.adaptive ? `, ${o.marginDb} dB above the floor` : ''}; 8 kHz μ-law line)`, [
      ...r.noise.map((n): [string, string, string] => [`false starts on noise alone: ${n.name}`, `${n.perMin} / min`, '0']),
      ...r.echo.map((e): [string, string, string] => [`false starts on the agent's own voice, echo ${e.erlDb} dB down`, `${e.perMin} / min`, '0']),
      ...r.onsets.map((x): [string, string, string] => [`${x.name}: ms after each labelled onset (missed, false)`, `${x.afterOnsetMs.map((v) => v ?? '–').join(', ')} (${x.missed}, ${x.falseStarts})`, `≥ ${o.minSpeechMs} each`]),
    ]);
  }
  return { bench: 'energy-vad', rows };
}
