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
import { benchOptions, FRAME_MS, FrameClock, holdsPerTurn, pcts, round, startCall, table, type BenchArgs } from './harness.ts';
import { performance } from 'node:perf_hooks';
import { spawnFakeService } from './fake-service.ts';

export const LATENCY_TARGETS = { addedP50: 2, addedP99: 10 };
/** The bench line's frame timer grain (setTimeout, whole ms): lateness up to this is the line's. */
const LINE_TIMER_MS = 1;

/**
 * Usage: npm run bench -- latency [--quick] [calls=10] [turns per call=21] [uplink=ms] [phases=1]
 * (quick: 3 × 6). `uplink=` sets the agent's /listen message size (`stt.uplinkFrameMs`): what it
 * adds to the end of speech shows as framework-added time. `phases=` spreads the calls' frame
 * clocks over the 20 ms (see FrameClock); the default 1 hands every call's frame over in the same
 * tick, and as the fake's delays are whole multiples of 20 ms, its answers then reach hiwar while
 * it handles that burst (docs/performance.md).
 */
export async function latency({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { numbers, named, agent } = benchOptions(rest);
  const phases = Number(named.phases ?? 1);
  const calls = numbers[0] ?? (quick ? 3 : 10);
  const turnsPerCall = numbers[1] ?? (quick ? 6 : 21);
  const delays = { sttMs: 200, llmMs: 200, ttsMs: 100 };
  const fake = await spawnFakeService(delays);
  try {
    const cpu0 = process.cpuUsage();
    const frames = new FrameClock(phases);
    const running = Array.from({ length: calls }, (_, i) =>
      startCall(fake, `lat${i}`, { turns: turnsPerCall, speechMs: 400, gapMs: 200 + Math.random() * 200 }, frames, agent),
    );
    await Promise.all(running.map((c) => c.done));
    // hiwar's CPU for this fixed work (the fake runs in its own process): comparable across
    // runs even on a loaded machine, where the timings are not.
    const cpu = process.cpuUsage(cpu0);
    const holds = await fake.holds();
    const v2v: number[] = [];
    const own: number[] = [];
    const added: number[] = [];
    const stage = { stt: [] as number[], decision: [] as number[], llm: [] as number[], tts: [] as number[], playout: [] as number[], other: [] as number[] };
    const held = { stt: [] as number[], llm: [] as number[], tts: [] as number[] };
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
        const sum = hk.stt + hk.llm + hk.tts + FRAME_MS + line;
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
        const { stt: hs, llm: hl, tts: ht } = hk.holds;
        const finalAt = t.speechEnd + (m.endOfSpeechToFinalMs ?? NaN);
        const decidedAt = finalAt + (m.turnDecisionMs ?? NaN);
        const firstToken = decidedAt + (m.llmFirstTokenMs ?? NaN);
        const firstAudio = t.speechEnd + m.voiceToVoiceMs - (m.playoutStartMs ?? NaN);
        const firstChunk = firstAudio - (m.ttsFirstAudioMs ?? NaN);
        if (t.silenceHandedAt !== undefined) split.line.push(t.silenceHandedAt - t.speechEnd - FRAME_MS);
        split.sttTo.push(onFake(hs.at - hs.heldMs) - t.speechEnd - FRAME_MS);
        split.sttFrom.push(finalAt - onFake(hs.at));
        if (hl) split.llmTo.push(onFake(hl.at - hl.heldMs) - decidedAt);
        if (hl) split.llmFrom.push(firstToken - onFake(hl.at));
        if (ht) split.ttsTo.push(onFake(ht.at - ht.heldMs) - firstChunk);
        if (ht) split.ttsFrom.push(firstAudio - onFake(ht.at));
      });
    });
    const res = {
      bench: 'latency',
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      uplinkFrameMs: agent.uplinkFrameMs ?? null,
      phases,
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
    };
    const f = (p: { p50: number | null; p95: number | null; p99: number | null }) => `${p.p50} / ${p.p95} / ${p.p99}`;
    table(`latency: ${res.turns} turns in ${calls} concurrent calls${phases > 1 ? ` on ${phases} frame phases` : ''}, fake delays stt ${delays.sttMs} llm ${delays.llmMs} tts ${delays.ttsMs} ms (p50 / p95 / p99, ms)`, [
      ['voice-to-voice', f(res.voiceToVoice), ''],
      ['framework-added', f(res.added), `p50 ≤ ${LATENCY_TARGETS.addedP50}, p99 ≤ ${LATENCY_TARGETS.addedP99}`],
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
      ['hiwar CPU for the whole run, ms', res.cpuMs, 'fixed work: compare runs by it'],
    ]);
    return res;
  } finally {
    await fake.close();
  }
}
