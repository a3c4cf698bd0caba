/**
 * Stages of a session with no service behind them (SessionOptions.stages): a recognizer that
 * hears loudness and says its script's lines, and a voice that hums. For session tests whose
 * subject is not recognition or synthesis.
 */
import { Subject } from './rx.ts';
import type { AudioFrame } from '../../src/audio/frame.ts';
import type { SpeechSink } from '../../src/pipeline/playout.ts';
import type { SpeechChunk } from '../../src/pipeline/speaker.ts';
import type { SttEvent } from '../../src/pipeline/stt.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { AgentSession, type SessionOptions } from '../../src/session/agent-session.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { AgentVoice, Recognizer } from '../../src/session/stage-types.ts';
import { SimulatedCaller, type CallerStep } from '../../src/testing/simulated-caller.ts';
import type { Clock } from '../../src/transport/clock.ts';

export const RATE = 16000;

/**
 * Hears loudness, not words: each burst of caller audio is the next line of its script. Without
 * `speechStarted` it never says SpeechStarted, only the words once the burst has ended.
 */
export class ScriptRecognizer implements Recognizer {
  private readonly subject = new Subject<SttEvent>();
  readonly events$ = this.subject.asObservable();
  private speaking = false;
  private quietMs = 0;
  constructor(
    private readonly clock: Clock,
    private readonly script: string[],
    private readonly speechStarted = true,
  ) {}
  async start(): Promise<void> {}
  push(frame: AudioFrame): void {
    const loud = frame.samples.some((s) => Math.abs(s) > 1000);
    const at = this.clock.now();
    if (loud) {
      this.quietMs = 0;
      if (!this.speaking && this.speechStarted) this.subject.next({ type: 'listen', at, event: { type: 'SpeechStarted', channel: 0, ts: 0 } });
      this.speaking = true;
    } else if (this.speaking && (this.quietMs += (frame.samples.length / frame.sampleRate) * 1000) >= 300) {
      this.speaking = false;
      const transcript = this.script.shift() ?? '';
      this.subject.next({ type: 'listen', at, event: { type: 'Results', channel: 0, turn_id: 0, transcript, words: [], is_final: true, speech_final: true, confidence: 1 } });
    }
  }
  timeOf(): number | undefined {
    return undefined;
  }
  async finish(): Promise<void> {
    this.subject.complete();
  }
}

/** Voices text as a steady hum, 40 ms a letter, and keeps what it was asked to say. */
export class HumVoice implements AgentVoice {
  readonly socketRate = RATE;
  readonly said: string[] = [];
  constructor(private readonly level = 300) {}
  async start(): Promise<void> {}
  async close(): Promise<void> {}
  async render(text: string) {
    return { samples: this.audio(text), sampleRate: RATE };
  }
  async speak(chunks: AsyncIterable<SpeechChunk>, sink: SpeechSink, signal: AbortSignal, onFirstAudio?: (at: number) => void): Promise<void> {
    for await (const c of chunks) {
      if (signal.aborted) return;
      this.said.push(c.spoken);
      onFirstAudio?.(Date.now());
      sink.beginSegment(c.text, c.spoken);
      sink.append(this.audio(c.spoken), RATE);
      sink.closeSegment();
    }
  }
  private audio(text: string): Int16Array {
    return new Int16Array(Math.round((text.length * 40 * RATE) / 1000)).fill(this.level);
  }
}


/**
 * A simulated caller whose one `line` is 0.6 s of loud audio (the script recognizer hears it as
 * that line), said `bargeInAfterMs` into the agent's first line when given, then `after`.
 */
export function loudCaller(clock: Clock, line: string, after: CallerStep[] = [{ hangup: true }], bargeInAfterMs?: number): SimulatedCaller {
  const say = bargeInAfterMs === undefined ? { say: line } : { say: line, bargeInAfterMs };
  return new SimulatedCaller(RATE, [say, ...after], new Map([[line, new Int16Array(RATE * 0.6).fill(4000)]]), clock);
}

/** A session with no service behind it: every stage that would call one is given (`stages`), the log silent. */
export function sessionWithoutService(o: Omit<SessionOptions, 'client'>): AgentSession {
  // Never reached: every stage that would call the service is replaced (no diacritization).
  return new AgentSession({ client: new ServiceClient({ apiKey: 'unused', baseUrl: 'http://127.0.0.1:9/api/v1' }), logger: createLogger('silent'), ...o });
}
