/**
 * `npm run bench -- amd [--quick] [vad=energy|silero] [option=value …]`: the answering-machine detector on its
 * labelled set (bench/amd-set.ts: people, voicemail greetings, carrier announcements, real line
 * noise, 8 kHz μ-law). Each recording is fed as 20 ms frames on its own timeline, with the
 * sandbox recognizer's transcripts at the times they would arrive; accuracy per class and the
 * time from the answer to the decision (on the audio's timeline, so the machine's load cannot
 * change it). `vad=silero` gives the detector Silero VAD's probabilities instead of its own
 * level VAD. `--quick`: every third recording. No `pin=` (bench/pin.ts): one process on the
 * audio's own timeline, whose figures the machine's load cannot change.
 */
import os from 'node:os';
import { AMD_DEFAULTS, AmdDetector, type AmdClass, type AmdDecision, type AmdOptions } from '../src/amd/index.ts';
import { resample } from '../src/audio/resample.ts';
import { amdSet, type AmdRecording } from './amd-set.ts';
import { benchOptions, percentile, round, table, type BenchArgs } from './harness.ts';
import { refusePin } from './pin.ts';

const FRAME = 160; // 20 ms at 8 kHz
const CLASSES: AmdRecording['label'][] = ['human', 'machine-voicemail', 'machine-unavailable'];
const HUMAN_TARGET_MS = 2500;

interface Outcome {
  rec: AmdRecording;
  d: AmdDecision;
}

type Windows = { p: number; start: number; end: number }[];

/** Silero's speech probabilities of a recording (ms), as the session's local VAD computes them. */
async function sileroWindows(rec: AmdRecording): Promise<Windows> {
  const { SileroStream } = await import('../src/audio/silero-vad.ts');
  const vad = await SileroStream.create();
  return (await vad.push(await resample(rec.samples, 8000, 16000))).map((w) => ({ p: w.p, start: w.start * 1000, end: w.end * 1000 }));
}

/** One recording through the detector, frame by frame, transcripts and VAD windows in time order. */
function detect(rec: AmdRecording, windows: Windows | undefined, opts: AmdOptions): AmdDecision {
  const det = new AmdDetector({ ...opts, ...(windows ? { vad: 'external' } : {}) }, 0);
  let ti = 0;
  let wi = 0;
  for (let at = 0, time = 0; at < rec.samples.length; at += FRAME, time += 20) {
    while (ti < rec.transcripts.length && rec.transcripts[ti]!.at <= time) {
      const t = rec.transcripts[ti++]!;
      if (det.transcript(t.text, true)) return det.decision!;
    }
    while (windows && wi < windows.length && windows[wi]!.end <= time) {
      const w = windows[wi++]!;
      if (det.speech(w.p, w.start, w.end)) return det.decision!;
    }
    if (det.push({ samples: rec.samples.subarray(at, at + FRAME), sampleRate: 8000, time })) return det.decision!;
  }
  // The recording ended undecided: the call goes on in silence until the detector's deadline.
  return det.tick(det.deadline ?? Infinity) ?? det.decision!;
}

export async function amd({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { named } = benchOptions(rest);
  refusePin(named.pin, 'amd', `it feeds recordings to the detector in this one process on the audio's own timeline, so the machine's load cannot change its figures and there is nothing to pin`);
  const vad = named.vad ?? 'energy';
  if (vad !== 'energy' && vad !== 'silero') throw new Error(`vad= is energy or silero, not ${vad}`);
  // Any numeric detector option may be tried: humanSilenceMs=800 …
  const opts: AmdOptions = {};
  for (const [k, v] of Object.entries(named)) {
    if (k === 'vad') continue;
    if (typeof AMD_DEFAULTS[k as keyof AmdOptions] !== 'number' || !Number.isFinite(Number(v))) throw new Error(`unknown option ${k}=${v}: vad= or a numeric AmdOptions field (${Object.keys(AMD_DEFAULTS).filter((o) => typeof AMD_DEFAULTS[o as keyof AmdOptions] === 'number').join(', ')})`);
    (opts as Record<string, number>)[k] = Number(v);
  }
  const load = os.loadavg()[0]!;
  const t0 = performance.now();
  const set = await amdSet(quick);
  const setMs = performance.now() - t0;
  const windows = new Map<string, Windows>();
  if (vad === 'silero') for (const r of set.recordings) windows.set(r.id, await sileroWindows(r));

  // Decisions are deterministic; the detector's CPU is measured on a second, warm pass.
  const outcomes: Outcome[] = set.recordings.map((rec) => ({ rec, d: detect(rec, windows.get(rec.id), opts) }));
  const c0 = process.cpuUsage();
  for (const rec of set.recordings) detect(rec, windows.get(rec.id), opts);
  const cpu = process.cpuUsage(c0);
  const audioS = set.recordings.reduce((n, r) => n + r.samples.length / 8000, 0);

  console.log(`amd: ${set.recordings.length} recordings${quick ? ' (--quick: every third)' : ''}, vad=${vad}${Object.keys(opts).length ? `, ${JSON.stringify(opts)}` : ''}; load average ${load.toFixed(2)} on ${os.cpus().length} cores`);
  console.log(`set: ${set.built ? `${set.built} recordings built now (cold: espeak, mixing, recognizer), ${Math.round(setMs / 1000)} s` : 'cached (warm)'} in ${set.dir}; decision times are on each recording's own timeline (ms after the answer), not wall time`);
  const perClass: Record<string, { n: number; right: number; accuracy: number | null; medianDecisionMs: number | null; p90DecisionMs: number | null }> = {};
  for (const cls of CLASSES) {
    const mine = outcomes.filter((o) => o.rec.label === cls);
    const right = mine.filter((o) => o.d.class === cls);
    const times = mine.map((o) => o.d.decisionMs);
    perClass[cls] = { n: mine.length, right: right.length, accuracy: round((100 * right.length) / mine.length), medianDecisionMs: round(percentile(times, 50), 0), p90DecisionMs: round(percentile(times, 90), 0) };
  }
  const right = outcomes.filter((o) => o.d.class === o.rec.label).length;
  const accuracy = round((100 * right) / outcomes.length);
  const medianDecisionMs = round(percentile(outcomes.map((o) => o.d.decisionMs), 50), 0);
  const beeps = outcomes.filter((o) => o.rec.beepEndMs !== undefined && o.d.beepEndAt !== undefined).map((o) => Math.abs(o.d.beepEndAt! - o.rec.beepEndMs!));
  const withBeep = outcomes.filter((o) => o.rec.beepEndMs !== undefined).length;
  const human = perClass.human!;
  table(`amd: accuracy per class and time from the answer to the decision`, [
    ...CLASSES.map((cls): [string, string, string] => {
      const c = perClass[cls]!;
      return [`${cls}: right / n (accuracy), median / p90 decision ms`, `${c.right}/${c.n} (${c.accuracy} %), ${c.medianDecisionMs} / ${c.p90DecisionMs}`, cls === 'human' ? `≥ 95 %, ≤ ${HUMAN_TARGET_MS} ms` : '≥ 95 %'];
    }),
    ['all: accuracy', `${accuracy} %`, '≥ 95 %'],
    ['all: median decision ms', medianDecisionMs, ''],
    ['beeps heard / voicemails with a beep; median |beep end error| ms', `${beeps.length}/${withBeep}; ${round(percentile(beeps, 50), 0)}`, ''],
    ['detector CPU per second of audio (warm pass)', `${round((cpu.user + cpu.system) / 1000 / audioS, 2)} ms`, ''],
  ]);
  const wrong = outcomes.filter((o) => o.d.class !== o.rec.label);
  if (wrong.length) console.log(`\nwrong:\n${wrong.map((o) => `  ${o.rec.id} (${o.rec.noise} ${o.rec.snrDb} dB): ${o.d.class} at ${o.d.decisionMs} ms: ${o.d.reason}`).join('\n')}`);
  const classes = Object.fromEntries(CLASSES.map((c) => [c, 0])) as Record<AmdClass, number>;
  for (const o of outcomes) classes[o.d.class] = (classes[o.d.class] ?? 0) + 1;
  return {
    accuracy,
    medianDecisionMs,
    perClass,
    bench: 'amd',
    vad,
    options: opts,
    recordings: outcomes.length,
    load: round(load, 2),
    humanMedianDecisionMs: human.medianDecisionMs,
    decided: classes,
  };
}
