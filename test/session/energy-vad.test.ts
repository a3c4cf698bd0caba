import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Subject } from 'rxjs';
import callCentre from '../../agents/call-centre/index.ts';
import type { AudioFrame } from '../../src/audio/frame.ts';
import type { SpeechSink } from '../../src/pipeline/playout.ts';
import type { SpeechChunk } from '../../src/pipeline/speaker.ts';
import type { SttEvent } from '../../src/pipeline/stt.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { AgentSession } from '../../src/session/agent-session.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { AgentVoice, Recognizer } from '../../src/session/stage-types.ts';
import { SimulatedCaller } from '../../src/testing/simulated-caller.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import type { Clock } from '../../src/transport/clock.ts';

const RATE = 16000;

/** A recognizer that never says SpeechStarted: only the words, once a burst of loud audio has ended. */
class WordsOnlyRecognizer implements Recognizer {
  private readonly subject = new Subject<SttEvent>();
  readonly events$ = this.subject.asObservable();
  private speaking = false;
  private quietMs = 0;
  constructor(private readonly clock: Clock, private readonly script: string[]) {}
  async start(): Promise<void> {}
  push(frame: AudioFrame): void {
    if (frame.samples.some((s) => Math.abs(s) > 1000)) {
      this.speaking = true;
      this.quietMs = 0;
    } else if (this.speaking && (this.quietMs += (frame.samples.length / frame.sampleRate) * 1000) >= 200) {
      this.speaking = false;
      const transcript = this.script.shift() ?? '';
      this.subject.next({ type: 'listen', at: this.clock.now(), event: { type: 'Results', channel: 0, turn_id: 0, transcript, words: [], is_final: true, speech_final: true, confidence: 1 } });
    }
  }
  timeOf(): number | undefined {
    return undefined;
  }
  async finish(): Promise<void> {
    this.subject.complete();
  }
}

/** Voices text as a quiet steady tone, 40 ms a letter. */
class ToneVoice implements AgentVoice {
  readonly socketRate = RATE;
  async start(): Promise<void> {}
  async close(): Promise<void> {}
  async render(text: string) {
    return { samples: this.audio(text), sampleRate: RATE };
  }
  async speak(chunks: AsyncIterable<SpeechChunk>, sink: SpeechSink, signal: AbortSignal): Promise<void> {
    for await (const c of chunks) {
      if (signal.aborted) return;
      sink.beginSegment(c.text, c.spoken);
      sink.append(this.audio(c.spoken), RATE);
      sink.closeSegment();
    }
  }
  private audio(text: string): Int16Array {
    return new Int16Array(Math.round((text.length * 40 * RATE) / 1000)).fill(300);
  }
}

/** The caller cuts into the greeting; returns when each interruption event came, in caller seconds, and the caller's line. */
async function bargeIn(localVad: 'energy' | false) {
  const clock = new SteadyScaledClock(3);
  const line = 'لحظة من فضلك';
  const caller = new SimulatedCaller(RATE, [{ say: line, bargeInAfterMs: 400 }, { hangup: true }], new Map([[line, new Int16Array(RATE * 0.6).fill(4000)]]), clock);
  const session = new AgentSession({
    client: new ServiceClient({ apiKey: 'unused', baseUrl: 'http://127.0.0.1:9/api/v1' }),
    transport: caller,
    agent: { ...callCentre, interruption: { ...callCentre.interruption, localVad } },
    clock,
    logger: createLogger('silent'),
    stages: { recognizer: new WordsOnlyRecognizer(clock, [line]), voice: () => new ToneVoice() },
  });
  const events: { kind: string; at: number }[] = [];
  session.events$.subscribe((e) => {
    if (e.type === 'interruption') events.push({ kind: e.kind, at: caller.elapsed() });
  });
  try {
    await session.run();
    caller.callerHangsUp();
    return { events, line: caller.lines.find((l) => l.text === line)! };
  } finally {
    clock.stop();
  }
}

test("localVad 'energy': the agent pauses on the caller's first loud frames, before any event of the recognizer; its words still confirm the cut", async () => {
  const { events, line } = await bargeIn('energy');
  assert.ok(line, 'the caller spoke');
  assert.deepEqual(events.map((e) => e.kind).slice(0, 2), ['paused', 'confirmed'], JSON.stringify(events));
  const paused = events[0]!.at;
  assert.ok(paused >= line.start && paused < line.end, `paused at ${paused.toFixed(3)} s, inside the caller's line ${line.start.toFixed(3)}–${line.end.toFixed(3)} s (the recognizer answers only after it)`);
});

test('without a local VAD the same recognizer (no SpeechStarted) pauses nothing: the cut waits for its words', async () => {
  const { events, line } = await bargeIn(false);
  assert.deepEqual(events.map((e) => e.kind), ['confirmed'], JSON.stringify(events));
  assert.ok(events[0]!.at >= line.end, 'after the line');
});
