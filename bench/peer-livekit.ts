/**
 * LiveKit Agents for Node (`@livekit/agents` 1.9) on the peer bench: its `voice.AgentSession`
 * run without a LiveKit server (`session.input.audio` / `session.output.audio` set before
 * `start({ agent })`), with minimal STT, LLM and TTS adapters to the same fake service hiwar's
 * calls use, and the same bench caller (BenchCaller: one frame clock, the caller's stopwatch).
 *
 * The adapters do what a provider plugin does and no more: the STT streams the caller's frames
 * to the fake's /listen and maps its events (SpeechStarted → START_OF_SPEECH, an interim →
 * INTERIM_TRANSCRIPT, the final → FINAL_TRANSCRIPT and END_OF_SPEECH); the LLM posts the chat to
 * the fake's /v1/chat/completions and forwards the streamed deltas; the TTS posts each sentence
 * to the fake's REST synthesis at the line's 8 kHz and forwards the audio as it arrives (LiveKit
 * wraps a non-streaming TTS in its own sentence StreamAdapter). Turn detection is the STT's end
 * of speech with no extra delay (hiwar's bench agent: `turn.endDelayMs` 0) and no VAD.
 *
 * The package is loaded from the folder it was installed into (`peerDir()`), never from the
 * project's node_modules; its types are not the project's, hence the loose typing here.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import type { FakeServiceProcess } from './fake-service.ts';
import { BenchCaller, RATE, type CallerPlan, type FrameClock } from './harness.ts';

/** Where LiveKit Agents is installed for the bench: `HIWAR_BENCH_PEER_DIR`, or `.bench-peer/` in the repository. */
export function peerDir(): string {
  return process.env.HIWAR_BENCH_PEER_DIR ?? fileURLToPath(new URL('../.bench-peer/', import.meta.url));
}

/** The install command the bench prints when LiveKit is absent. */
export const PEER_INSTALL = 'npm install --prefix .bench-peer @livekit/agents@~1.9.0';

/** True when `@livekit/agents` is installed in `peerDir()`. */
export function peerInstalled(): boolean {
  return existsSync(join(peerDir(), 'node_modules', '@livekit', 'agents', 'package.json'));
}

async function load(): Promise<{ lk: any; rtc: any; version: string }> {
  const require = createRequire(join(peerDir(), 'package.json'));
  const url = (name: string) => pathToFileURL(require.resolve(name)).href;
  const lk = await import(url('@livekit/agents'));
  const rtc = await import(url('@livekit/rtc-node'));
  const version = (JSON.parse(readFileSync(join(peerDir(), 'node_modules', '@livekit', 'agents', 'package.json'), 'utf8')) as { version: string }).version;
  return { lk, rtc, version };
}

/** The LiveKit side: builds a session per call against the fake. */
export async function livekitRunner(fake: Pick<FakeServiceProcess, 'baseUrl' | 'llmBaseUrl'>): Promise<{ version: string; errors: string[]; startCall(tag: string, plan: CallerPlan, frames: FrameClock): { caller: BenchCaller; done: Promise<unknown> } }> {
  const { lk, rtc, version } = await load();
  lk.initializeLogger({ pretty: false, level: process.env.HIWAR_BENCH_PEER_LOG ?? 'error' });
  const { stt, llm, tts, voice } = lk;
  const ws = fake.baseUrl.replace(/^http/, 'ws');

  class FakeSpeechStream extends stt.SpeechStream {
    label = 'bench.stream';
    constructor(s: any, private readonly tag: string) {
      super(s, RATE);
    }
    async run(): Promise<void> {
      const sock = new WebSocket(`${ws}/listen?model=asr&encoding=linear16&sample_rate=${RATE}&channels=1&interim_results=true&hotwords=${this.tag}`, { headers: { authorization: 'Bearer bench-key' } });
      await new Promise((resolve, reject) => sock.once('open', resolve).once('error', reject));
      const alt = (text: string) => [{ text, language: 'ar', startTime: 0, endTime: 0, confidence: 1 }];
      sock.on('message', (d: Buffer) => {
        const m = JSON.parse(d.toString()) as { type: string; transcript?: string; is_final?: boolean };
        if (m.type === 'SpeechStarted') this.queue.put({ type: stt.SpeechEventType.START_OF_SPEECH });
        else if (m.type === 'Results' && !m.is_final) this.queue.put({ type: stt.SpeechEventType.INTERIM_TRANSCRIPT, alternatives: alt(m.transcript ?? '') });
        else if (m.type === 'Results') {
          this.queue.put({ type: stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives: alt(m.transcript ?? '') });
          this.queue.put({ type: stt.SpeechEventType.END_OF_SPEECH });
        }
      });
      for await (const f of this.input) {
        if (f === stt.SpeechStream.FLUSH_SENTINEL || sock.readyState !== WebSocket.OPEN) continue;
        const data = (f as any).data as Int16Array;
        sock.send(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      }
      sock.close();
    }
  }
  class FakeStt extends stt.STT {
    label = 'bench-stt';
    constructor(private readonly tag: string) {
      super({ streaming: true, interimResults: true });
    }
    async _recognize(): Promise<never> {
      throw new Error('the bench streams');
    }
    stream(): any {
      return new FakeSpeechStream(this, this.tag);
    }
  }

  class FakeLlmStream extends llm.LLMStream {
    constructor(l: any, o: any, private readonly tag: string) {
      super(l, o);
    }
    async run(): Promise<void> {
      const messages = this.chatCtx.items.filter((i: any) => i.type === 'message').map((i: any) => ({ role: i.role === 'developer' ? 'system' : i.role, content: i.textContent ?? '' }));
      const res = await fetch(`${fake.llmBaseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body: JSON.stringify({ model: this.tag, stream: true, messages }) });
      let rest = '';
      for await (const part of res.body as any as AsyncIterable<Uint8Array>) {
        rest += Buffer.from(part).toString();
        let nl: number;
        while ((nl = rest.indexOf('\n\n')) >= 0) {
          const line = rest.slice(0, nl).trim();
          rest = rest.slice(nl + 2);
          if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
          const content = (JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content;
          if (content) this.queue.put({ id: 'bench', delta: { role: 'assistant', content } });
        }
      }
    }
  }
  class FakeLlm extends llm.LLM {
    constructor(private readonly tag: string) {
      super();
    }
    label(): string {
      return 'bench-llm';
    }
    chat({ chatCtx, toolCtx, connOptions }: any): any {
      return new FakeLlmStream(this, { chatCtx, toolCtx, connOptions }, this.tag);
    }
  }

  class FakeChunked extends tts.ChunkedStream {
    label = 'bench-tts.chunked';
    constructor(text: string, t: any, conn: any, signal: any, private readonly tag: string) {
      super(text, t, conn, signal);
    }
    async run(): Promise<void> {
      const res = await fetch(`${fake.baseUrl}/text-to-speech/bench`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'bench-key' }, body: JSON.stringify({ text: this.inputText, voice_id: this.tag, sample_rate: RATE }) });
      let carry = Buffer.alloc(0);
      for await (const part of res.body as any as AsyncIterable<Uint8Array>) {
        const b = Buffer.concat([carry, Buffer.from(part)]);
        const even = b.byteLength & ~1;
        carry = b.subarray(even);
        const samples = new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + even));
        if (samples.length) this.queue.put({ requestId: 'bench', segmentId: 'bench', frame: new rtc.AudioFrame(samples, RATE, 1, samples.length), final: false });
      }
    }
  }
  class FakeTts extends tts.TTS {
    label = 'bench-tts';
    constructor(private readonly tag: string) {
      super(RATE, 1, { streaming: false });
    }
    synthesize(text: string, conn?: any, signal?: any): any {
      return new FakeChunked(text, this, conn, signal, this.tag);
    }
    stream(): never {
      throw new Error('not streaming');
    }
  }

  /** The caller's frames into the session. */
  class CallerInput extends voice.AudioInput {
    controller!: ReadableStreamDefaultController<any>;
    constructor() {
      super();
      this.multiStream.addInputStream(new ReadableStream({ start: (c) => void (this.controller = c) }));
    }
  }

  /** The agent's frames to the bench caller's paced line; playback ends when the line has played them. */
  class LineOutput extends voice.AudioOutput {
    private playEnd = 0;
    private played = 0;
    private timer: NodeJS.Timeout | undefined;
    constructor(private readonly caller: BenchCaller) {
      super(RATE, undefined, { pause: false });
    }
    async captureFrame(frame: any): Promise<void> {
      await super.captureFrame(frame);
      const now = performance.now();
      const ms = (frame.samplesPerChannel / frame.sampleRate) * 1000;
      if (this.played === 0) this.onPlaybackStarted(Date.now());
      this.playEnd = Math.max(this.playEnd, now) + ms;
      this.played += ms;
      this.caller.output.write({ samples: frame.data as Int16Array, sampleRate: frame.sampleRate, time: now });
    }
    flush(): void {
      super.flush();
      const played = this.played;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.finished(played / 1000, false), Math.max(0, this.playEnd - performance.now()));
    }
    clearBuffer(): void {
      clearTimeout(this.timer);
      this.caller.output.interrupt();
      this.finished(this.played / 1000, true);
    }
    private finished(position: number, interrupted: boolean): void {
      this.played = 0;
      this.playEnd = 0;
      if (this.pendingPlayoutSegments > 0) this.onPlaybackFinished({ playbackPosition: position, interrupted });
    }
  }

  const errors: string[] = [];
  return {
    version,
    errors,
    startCall(tag, plan, frames) {
      const caller = new BenchCaller(tag, plan, frames);
      const session = new voice.AgentSession({
        stt: new FakeStt(tag),
        llm: new FakeLlm(tag),
        tts: new FakeTts(tag),
        vad: null,
        turnHandling: { turnDetection: 'stt', endpointing: { minDelay: 0, maxDelay: 0 } },
      });
      // An unheard 'error' event would end the process: counted and reported with the figures.
      session.on('error', (e: any) => errors.push(`${e?.error?.type ?? 'error'}: ${e?.error?.error?.message ?? e?.error?.message ?? e}`));
      const input = new CallerInput();
      session.input.audio = input;
      session.output.audio = new LineOutput(caller);
      const done = (async () => {
        await session.start({ agent: new voice.Agent({ instructions: 'أنت موظف خدمة عملاء.' }) });
        await new Promise<void>((resolve) => {
          caller.audio$.subscribe({
            next: (f) => input.controller.enqueue(new rtc.AudioFrame(f.samples, f.sampleRate, 1, f.samples.length)),
            complete: () => resolve(),
          });
        });
        await session.close();
      })();
      return { caller, done };
    },
  };
}
