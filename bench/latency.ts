/**
 * Voice-to-voice latency and the part of it that is hiwar's own: calls against the fake service
 * (its own process, fixed delays), every turn's held delays subtracted.
 *
 * framework-added = voice-to-voice − held STT − held LLM − held TTS − deliberate waits, where
 * the deliberate waits are the turn end delay (`turn.endDelayMs`, 0 for the bench agent) and one
 * caller frame (20 ms: the fake, like any endpointer, hears the end of speech with the first
 * silent frame, and the line hands a frame over only once it is captured), plus the bench line's
 * timer grain (up to 1 ms of that frame's lateness). The fake's holds count from each request's
 * arrival to its answer, so the fake's own reading and writing are not hiwar's.
 * Per stage: end of speech → final minus the STT hold (uplink framing, the socket, event
 * handling), turn decision, decision → first token minus the LLM hold, text → first audio minus
 * the TTS hold, first audio → first frame on the line.
 */
import { benchOptions, type BenchAgentOptions, FRAME_MS, FrameClock, holdsPerTurn, pcts, round, startCall, table, type BenchArgs } from './harness.ts';
import { performance } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';
import { spawnFakeService, type FakeServiceProcess } from './fake-service.ts';
import { explainTurn, GcLog, meanSpans, slowest, type Span, type TurnTail } from './tail.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { SentenceChunker } from '../src/text/chunker.ts';
import { conditions, spanLine } from './conditions.ts';
import { pinBench } from './pin.ts';
import { STREAM_REPLY } from './fake-service.ts';
import { latencyRows as rows } from './latency-rows.ts';

export const LATENCY_TARGETS = { addedP50: 2, addedP99: 6, coldP99: 15 };
/** The bench line's frame timer grain (setTimeout, whole ms): lateness up to this is the line's. */
const LINE_TIMER_MS = 1;

/**
 * Turns per call of the unmeasured calls run first, in the same process (`warmup=0`: none). A
 * fresh process spends its first seconds compiling the turn's code and collecting its start-up
 * garbage (a scavenge and a mark-compact of 10–20 ms around 4 s in, measured: docs/performance.md,
 * "the tail, fourth round"), and with every call started at once those pauses land on the first
 * measured turn of all of them. Leaving out the first turn of each call did not cover that.
 */
export const WARMUP_TURNS = 3;

/** Unmeasured calls (their own tags) in the same process: the measured run starts warm. */
async function warmUp(fake: FakeServiceProcess, calls: number, turns: number, phases: number, agent: BenchAgentOptions): Promise<{ calls: number; turns: number; ms: number }> {
  const t = performance.now();
  const frames = new FrameClock(phases);
  const running = Array.from({ length: calls }, (_, i) => startCall(fake, `warm${i}`, { turns, speechMs: 400, gapMs: 200 + Math.random() * 200 }, frames, agent));
  await Promise.all(running.map((c) => c.done));
  // No full collection after it: gc() shrinks the young generation back to its minimum, and the
  // measured run then had five times the scavenges (34 against 7, measured).
  return { calls, turns, ms: Math.round(performance.now() - t) };
}

/**
 * How many frame phases the calls' caller frames are spread over by default: 10, so ten calls
 * are each on their own 2 ms slot of the 20 ms, as independent callers are (each call's audio
 * comes on its own socket, on its own clock). `phases=1` puts every call's frame in the same tick:
 * with the fake's delays whole multiples of 20 ms, every answer then reaches hiwar while it
 * handles a burst of ten frames, a coincidence of the bench's single timer that no deployment
 * has, kept as the worst case (docs/performance.md prints both).
 */
export const DEFAULT_PHASES = 10;

/**
 * Usage: npm run bench -- latency [--quick] [calls] [turns per call] [rows=1,10,100] [cold=10]
 * [stream=1] [uplink=ms] [phases=10] [spread=0] [warmup=3] [dump=file.json] [pin=auto|off|1/0].
 * Without `calls`: one row per number of concurrent calls in `rows=` (default 1, 10 and 100; quick
 * 1 and 10), each in this process after its warm-up, and a cold row: `cold=` calls (default 10,
 * quick 3) in a fresh process with no warm-up; a summary table of all rows at the end. With
 * `calls` (and `turns per call`, default 21; quick 3 × 6): that one row, as before.
 * `stream=1` (default): the fake model streams its reply token by token with 10–40 ms gaps,
 * sentence ends mid-stream, digits and a tool call after the text (the session runs the tool and
 * asks again); the model's own writing time up to the first chunk the agent sends to synthesis is
 * the model's, not hiwar's (see `modelTextMs`). `stream=0`: the whole reply right after its first
 * token (the friendliest case, the older figures). `warmup=` turns per call of unmeasured calls
 * first (see WARMUP_TURNS; 0 measures a cold process); `dump=` writes every turn's spans with the
 * run's collections and long frame ticks (bench/tail.ts). `uplink=` sets the agent's /listen
 * message size (`stt.uplinkFrameMs`): what it adds to the end of speech shows as framework-added
 * time. `phases=` spreads the calls' frame clocks over the 20 ms (see FrameClock and
 * DEFAULT_PHASES); 1 hands every call's frame over in the same tick, the worst case. `spread=`
 * seconds over which the calls' first speech is spread (see `firstSpeechAt`). `pin=`
 * (bench/pin.ts): this process (hiwar and the bench's callers, which live in it and cost next to
 * nothing) on its own core, the fake service on the rest; the cold row's process gets the same.
 */
export async function latency({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { numbers, named, agent } = benchOptions(rest);
  pinBench(named.pin, { self: 'server' });
  const stream = Number(named.stream ?? 1) === 1;
  const warmup = Number(named.warmup ?? (quick ? 1 : WARMUP_TURNS));
  if (!Number.isInteger(warmup) || warmup < 0) throw new Error(`warmup= is a number of turns per call (0 for a cold process), not ${named.warmup}`);
  const phases = Number(named.phases ?? DEFAULT_PHASES);
  const spread = Number(named.spread ?? 0);
  if (!Number.isFinite(spread) || spread < 0) throw new Error(`spread= is seconds (0 or more) over which the calls' first speech is spread, not ${named.spread}`);
  const o: RowOptions = { phases, warmup, stream, agent: { ...agent, tool: stream }, dump: named.dump, quick, spread };
  if (numbers[0] !== undefined) return row(numbers[0], numbers[1] ?? (quick ? 6 : 21), o);
  return rows(named, quick, o, rest);
}

interface RowOptions {
  phases: number;
  warmup: number;
  stream: boolean;
  agent: BenchAgentOptions;
  dump?: string;
  quick: boolean;
  /** Seconds over which the measured calls' first speech is spread (see `firstSpeechAt`). */
  spread: number;
}

/**
 * When call `i` of `calls` first speaks, ms after it starts: 300 ms, plus its even share of
 * `spreadS` seconds. With every call starting at once and the fake's delays fixed, every call's
 * turn N would otherwise fall within a few hundred ms of the others' for the whole run (each
 * caller's own gap drifts them apart by at most 200 ms a turn): bursts of a hundred finals, replies
 * and first audio together, which independent callers do not make. `spread=0` keeps that burst,
 * the worst case.
 */
export function firstSpeechAt(i: number, calls: number, spreadS: number): number {
  return 300 + (calls > 1 ? (i / calls) * spreadS * 1000 : 0);
}

/**
 * The token index after which hiwar's chunker hands the first piece of the streamed reply to
 * synthesis: the model's writing up to that token is time the agent waits on the model.
 */
export function firstChunkToken(tokens: readonly string[]): number {
  const c = new SentenceChunker();
  const i = tokens.findIndex((t) => c.push(t).length > 0);
  return i < 0 ? tokens.length - 1 : i;
}

/** One row: `calls` concurrent calls of `turnsPerCall` turns in this process. */
async function row(calls: number, turnsPerCall: number, { phases, warmup, stream, agent, dump: dumpFile, quick, spread }: RowOptions): Promise<Record<string, unknown>> {
  const firstChunk = firstChunkToken(STREAM_REPLY);
  const delays = { sttMs: 200, llmMs: 200, ttsMs: 100 };
  const fake = await spawnFakeService({ ...delays, streamReply: stream ? 1 : 0 });
  const conds = conditions([fake.pid]);
  try {
    // The process warmed up first (see WARMUP): its start-up garbage collected and the turn's
    // code compiled before the measured calls begin, as in a server that has taken calls before.
    const warm = warmup > 0 ? await warmUp(fake, calls, warmup, phases, agent) : undefined;
    const t0 = performance.now();
    const gc = new GcLog();
    gc.start();
    // How long the loop was held (a timer due now ran this late): the busy loop's share of a tail.
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const cpu0 = process.cpuUsage();
    const frames = new FrameClock(phases);
    const running = Array.from({ length: calls }, (_, i) =>
      startCall(fake, `lat${i}`, { turns: turnsPerCall, speechMs: 400, gapMs: 200 + Math.random() * 200, firstSpeechMs: firstSpeechAt(i, calls, spread) }, frames, agent),
    );
    await Promise.all(running.map((c) => c.done));
    // hiwar's CPU for this fixed work (the fake runs in its own process): comparable across
    // runs even on a loaded machine, where the timings are not.
    const cpu = process.cpuUsage(cpu0);
    gc.stop();
    loop.disable();
    const tails: TurnTail[] = [];
    const holds = await fake.holds();
    const v2v: number[] = [];
    const own: number[] = [];
    const added: number[] = [];
    const stage = { stt: [] as number[], decision: [] as number[], llm: [] as number[], tts: [] as number[], playout: [] as number[], other: [] as number[] };
    const held = { stt: [] as number[], llm: [] as number[], tts: [] as number[] };
    const modelTexts: number[] = [];
    // Each service stage split at the fake's own clock (its hold's start and end, moved onto this
    // process's timeline): "to" = this side's event → the fake starts holding (hiwar's sending,
    // the socket, the fake's reading); "from" = the fake answers → this side's event (the socket,
    // hiwar's parsing and handling). `line` = the first silent frame handed over past its due time.
    const split = { line: [] as number[], sttTo: [] as number[], sttFrom: [] as number[], llmTo: [] as number[], llmFrom: [] as number[], ttsTo: [] as number[], ttsFrom: [] as number[] };
    const onFake = (epoch: number) => epoch - fake.clockOffset - performance.timeOrigin;
    running.forEach((c, i) => {
      const h = holdsPerTurn(holds[`lat${i}`]);
      c.caller.turns.forEach((t, k) => {
        // The first turn of a call opens the model's HTTP connection and warms the JIT: left out.
        if (k === 0) return;
        const m = t.metrics;
        const hk = h[k];
        if (!m?.voiceToVoiceMs || !hk || !Number.isFinite(hk.llm + hk.tts)) return;
        // The fake hears the end of speech only with the first silent frame: one caller frame is the line's.
        // The bench line's own timer: the frame clock is a 1 ms-grained setTimeout, so the first
        // silent frame is handed over up to LINE_TIMER_MS past its due time for no fault of the
        // agent (a real line's frames arrive on a socket). Only that much of its lateness is
        // taken off; anything later (the process busy, the machine loaded) stays hiwar's.
        const line = t.silenceHandedAt === undefined ? 0 : Math.min(LINE_TIMER_MS, Math.max(0, t.silenceHandedAt - t.speechEnd - FRAME_MS));
        // Streamed: the model's own writing from its first token to the token that completes the
        // first chunk (tokens written with 10–40 ms gaps) is the model's time, like its hold.
        const hl0 = hk.holds.llm;
        const modelText = stream && hl0?.tokensAt?.[firstChunk] !== undefined ? hl0.tokensAt[firstChunk]! - hl0.at : 0;
        modelTexts.push(modelText);
        const sum = hk.stt + hk.llm + modelText + hk.tts + FRAME_MS + line;
        held.stt.push(hk.stt);
        held.llm.push(hk.llm);
        held.tts.push(hk.tts);
        v2v.push(m.voiceToVoiceMs);
        added.push(m.voiceToVoiceMs - sum);
        if (t.firstAgentAudio !== undefined) own.push(t.firstAgentAudio - t.speechEnd - sum);
        const s = (m.endOfSpeechToFinalMs ?? 0) - hk.stt - FRAME_MS - line;
        const l = (m.llmFirstTokenMs ?? 0) - hk.llm;
        const tt = (m.ttsFirstAudioMs ?? 0) - hk.tts;
        stage.stt.push(s);
        stage.decision.push(m.turnDecisionMs ?? 0);
        stage.llm.push(l);
        stage.tts.push(tt);
        stage.playout.push(m.playoutStartMs ?? 0);
        // Between the stages' milestones: first token → first text sent to synthesis (chunker, normalizer).
        stage.other.push(m.voiceToVoiceMs - sum - s - (m.turnDecisionMs ?? 0) - l - tt - (m.playoutStartMs ?? 0));
        // (sum includes the model's writing time, so "token → tts text" is hiwar's part of that span.)
        const { stt: hs, llm: hl, tts: ht } = hk.holds;
        const finalAt = t.speechEnd + (m.endOfSpeechToFinalMs ?? NaN);
        const decidedAt = finalAt + (m.turnDecisionMs ?? NaN);
        const firstToken = decidedAt + (m.llmFirstTokenMs ?? NaN);
        const firstAudio = t.speechEnd + m.voiceToVoiceMs - (m.playoutStartMs ?? NaN);
        const firstChunkAt = firstAudio - (m.ttsFirstAudioMs ?? NaN);
        if (t.silenceHandedAt !== undefined) split.line.push(t.silenceHandedAt - t.speechEnd - FRAME_MS);
        split.sttTo.push(onFake(hs.at - hs.heldMs) - t.speechEnd - FRAME_MS);
        split.sttFrom.push(finalAt - onFake(hs.at));
        if (hl) split.llmTo.push(onFake(hl.at - hl.heldMs) - decidedAt);
        if (hl) split.llmFrom.push(firstToken - onFake(hl.at));
        if (ht) split.ttsTo.push(onFake(ht.at - ht.heldMs) - firstChunkAt);
        if (ht) split.ttsFrom.push(firstAudio - onFake(ht.at));
        // The turn's own spans (between the holds), to see what held the loop in the slowest turns.
        const spans: Span[] = [
          { name: 'stt: frame due → fake holds', from: t.speechEnd + FRAME_MS, to: onFake(hs.at - hs.heldMs) },
          { name: 'stt: fake answers → final', from: onFake(hs.at), to: finalAt },
          { name: 'turn decision', from: finalAt, to: decidedAt },
          { name: 'llm: decision → fake holds', from: decidedAt, to: hl ? onFake(hl.at - hl.heldMs) : NaN },
          { name: 'llm: fake answers → token', from: hl ? onFake(hl.at) : NaN, to: firstToken },
          { name: 'token → tts text', from: firstToken, to: firstChunkAt },
          { name: 'tts: text → fake holds', from: firstChunkAt, to: ht ? onFake(ht.at - ht.heldMs) : NaN },
          { name: 'tts: fake answers → audio', from: ht ? onFake(ht.at) : NaN, to: firstAudio },
          { name: 'playout start', from: firstAudio, to: firstAudio + (m.playoutStartMs ?? 0) },
        ];
        tails.push(explainTurn(i, t.speechEnd, k, added.at(-1)!, spans, gc.entries, frames.longTicks));
      });
    });
    const res = {
      bench: 'latency',
      stream,
      conditions: conds.end(),
      modelTextMs: pcts(modelTexts),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      uplinkFrameMs: agent.uplinkFrameMs ?? null,
      phases,
      spreadS: spread,
      quick,
      calls,
      turns: v2v.length,
      delays,
      voiceToVoice: pcts(v2v),
      added: pcts(added),
      addedAtCaller: pcts(own),
      stages: Object.fromEntries(Object.entries(stage).map(([k, xs]) => [k, pcts(xs)])),
      held: Object.fromEntries(Object.entries(held).map(([k, xs]) => [k, pcts(xs)])),
      split: Object.fromEntries(Object.entries(split).map(([k, xs]) => [k, pcts(xs)])),
      clockOffsetMs: round(fake.clockOffset, 2),
      targets: LATENCY_TARGETS,
      deliberateWaitsMs: { turnEndDelay: 0, callerFrame: FRAME_MS, lineTimerUpTo: LINE_TIMER_MS },
      warmupTurnsLeftOut: calls,
      warmup: warm ?? { calls: 0, turns: 0, ms: 0 },
      gc: { all: gc.total(), scavenge: gc.total('scavenge'), markCompact: gc.total('mark-compact'), longest: [...gc.entries].sort((a, b) => b.ms - a.ms).slice(0, 5).map((e) => ({ what: e.what, ms: round(e.ms, 2) })) },
      frameTicks: { ms: Math.round(frames.tickMs), long: frames.longTicks.length, maxMs: round(Math.max(0, ...frames.longTicks.map((t) => t.ms)), 2) },
      slowest: slowest(tails, 0.05),
      loopDelayMs: { p50: round(loop.percentile(50) / 1e6, 2), p99: round(loop.percentile(99) / 1e6, 2), max: round(loop.max / 1e6, 2) },
      spansMean: { all: meanSpans(tails), slowest5pc: meanSpans(slowest(tails, 0.05)) },
    };
    const f = (p: { p50: number | null; p95: number | null; p99: number | null }) => `${p.p50} / ${p.p95} / ${p.p99}`;
    table(`latency: ${res.turns} turns in ${calls} concurrent calls, ${stream ? 'streamed reply (10–40 ms token gaps, tool call)' : 'whole reply after the first token (stream=0)'}, ${spanLine(res.conditions)}; ${phases > 1 ? `on ${phases} frame phases` : 'every frame in one tick (phases=1)'}, ${spread && calls > 1 ? `first speech spread over ${spread} s` : 'every call first speaking together (spread=0)'}, ${warm ? `after ${warm.turns} unmeasured turns of ${warm.calls} calls (warmup=)` : 'cold process (warmup=0)'}, fake delays stt ${delays.sttMs} llm ${delays.llmMs} tts ${delays.ttsMs} ms (p50 / p95 / p99, ms)`, [
      ['voice-to-voice', f(res.voiceToVoice), ''],
      ['framework-added', f(res.added), warm ? `p50 ≤ ${LATENCY_TARGETS.addedP50}, p99 ≤ ${LATENCY_TARGETS.addedP99}` : `p99 ≤ ${LATENCY_TARGETS.coldP99} (cold)`],
      ['added, caller stopwatch', f(res.addedAtCaller), 'same, measured at the line'],
      ['  stt (eos → final − hold)', f(res.stages.stt!), ''],
      ['  turn decision', f(res.stages.decision!), ''],
      ['  llm (− hold)', f(res.stages.llm!), ''],
      ['  token → tts text', f(res.stages.other!), ''],
      ['  tts (− hold)', f(res.stages.tts!), ''],
      ['  playout start', f(res.stages.playout!), ''],
      ['  · first silent frame handed over late', f(res.split.line!), `the bench line: up to ${LINE_TIMER_MS} ms of it not counted`],
      ['  · stt: frame due → fake holds', f(res.split.sttTo!), 'split at the fake\'s clock'],
      ['  · stt: fake answers → final event', f(res.split.sttFrom!), ''],
      ['  · llm: decision → fake holds', f(res.split.llmTo!), ''],
      ['  · llm: fake answers → first token', f(res.split.llmFrom!), ''],
      ['  · tts: text → fake holds', f(res.split.ttsTo!), ''],
      ['  · tts: fake answers → first audio', f(res.split.ttsFrom!), ''],
      ['held stt', f(res.held.stt!), `nominal ${delays.sttMs}`],
      ['held llm', f(res.held.llm!), `nominal ${delays.llmMs}`],
      ['held tts', f(res.held.tts!), `nominal ${delays.ttsMs}`],
      ['model writing, first token → first chunk\'s last', f(res.modelTextMs), 'the model\'s, not counted'],
      ['hiwar CPU for the whole run, ms', res.cpuMs, 'fixed work: compare runs by it'],
      ['collections: scavenges (n / ms / max)', `${res.gc.scavenge.n} / ${round(res.gc.scavenge.ms)} / ${round(res.gc.scavenge.maxMs, 2)}`, 'in hiwar\'s process'],
      ['collections: mark-compact (n / ms / max)', `${res.gc.markCompact.n} / ${round(res.gc.markCompact.ms)} / ${round(res.gc.markCompact.maxMs, 2)}`, ''],
      ['collections: the longest (ms)', res.gc.longest.map((e) => `${e.what} ${e.ms}`).join(', '), ''],
      ['frame ticks: ms in all / ≥ 0.5 ms / max', `${res.frameTicks.ms} / ${res.frameTicks.long} / ${res.frameTicks.maxMs}`, 'the bench line\'s tick, every call\'s frame to /listen'],
      ['event-loop delay p50 / p99 / max, ms', `${res.loopDelayMs.p50} / ${res.loopDelayMs.p99} / ${res.loopDelayMs.max}`, 'hiwar\'s process over the run (monitorEventLoopDelay)'],
    ]);
    console.log('\nwhere the turns\' hiwar-side time went, mean ms per span: all turns → the slowest 5 %');
    for (const [k, v] of Object.entries(res.spansMean.slowest5pc)) console.log(`  ${k}: ${res.spansMean.all[k] ?? '–'} → ${v}`);
    console.log(`\nthe slowest ${res.slowest.length} turns (5 %): what held hiwar's loop during the turn's own spans`);
    for (const t of res.slowest) {
      const gcs = Object.entries(t.gc).map(([k, v]) => `${k} ${round(v, 2)}`).join(', ') || 'none';
      const busy = t.busy.map((b) => `${b.what} ${b.ms} ms in "${b.at}"`).join('; ') || '–';
      console.log(`  added ${round(t.addedMs)} ms, call ${t.call} turn ${t.turn}: largest span "${t.worst.name}" ${t.worst.ms} ms; gc ${gcs}; frame ticks ${round(t.frameTickMs, 2)} ms; [${busy}]`);
    }
    // dump=<file>: every turn's spans against the run's collections and long frame ticks, for a closer look.
    if (dumpFile) writeFileSync(dumpFile, JSON.stringify({ t0, tails, gc: gc.entries, ticks: frames.longTicks }));
    return res;
  } finally {
    await fake.close();
  }
}
