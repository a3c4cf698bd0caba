/**
 * The fake service's speech synthesis (see fake-service.ts), on its socket and over REST: first
 * audio `ttsMs` after the text, then `chunkMs` pieces of a quiet tone, `audioMsPerChar` of audio
 * per character, sent `realtimeFactor` times faster than real time.
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { WebSocket } from 'ws';
import type { FakeDelays, RecordHold } from './fake-service.ts';

/** `ms` of the quiet tone at `rate`, as PCM bytes. */
export type ToneBytes = (rate: number, ms: number) => Buffer;

const epochNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Quiet tone samples (not silence, so a recording of the call shows the agent). */
function tone(samples: number, rate: number): Int16Array {
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; i++) out[i] = Math.round(300 * Math.sin((2 * Math.PI * 440 * i) / rate));
  return out;
}

/** Tone bytes cached per rate and length, so the fake spends nothing per message on them. */
export function toneCache(): ToneBytes {
  const tones = new Map<string, Buffer>();
  return (rate, ms) => {
    const key = `${rate}:${ms}`;
    let b = tones.get(key);
    if (!b) {
      const t = tone(Math.round((rate * ms) / 1000), rate);
      tones.set(key, (b = Buffer.from(t.buffer, t.byteOffset, t.byteLength)));
    }
    return b;
  };
}

/** Answers one `POST /text-to-speech/{model}`: the call is named by its voice_id. */
export async function fakeRestTts(b: Record<string, unknown>, res: ServerResponse, started: number, d: FakeDelays, record: RecordHold, toneBytes: ToneBytes): Promise<void> {
  const rate = Number(b.sample_rate ?? 24000);
  const text = String(b.text ?? '');
  await sleep(d.ttsMs);
  const held = record(String(b.voice_id ?? ''), 'tts', d.ttsMs, started);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-held-ms': held.toFixed(2) });
  let left = Math.max(d.chunkMs, text.length * d.audioMsPerChar);
  while (left > 0 && !res.destroyed) {
    const ms = Math.min(d.chunkMs, left);
    res.write(toneBytes(rate, ms));
    left -= ms;
    if (left > 0) await sleep(ms / d.realtimeFactor);
  }
  res.end();
}

/** Serves one /websocket/text-to-speech socket: the call is named by its voice_id. */
export function fakeTtsSocket(ws: WebSocket, d: FakeDelays, record: RecordHold, toneBytes: ToneBytes): void {
  let call = '';
  let rate = 24000;
  let epoch = 0;
  // Generations run one after the other, as the service voices text in order.
  let chain = Promise.resolve();
  let utteranceStarted = true;
  const send = (m: object) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(m));
  const generate = (text: string, mine: number, arrived: number) => async () => {
    const first = utteranceStarted;
    utteranceStarted = false;
    // The first text of an utterance finds the socket idle: its hold counts from its arrival.
    const started = first ? arrived : epochNow();
    await sleep(d.ttsMs);
    if (mine !== epoch) return;
    let left = Math.max(d.chunkMs, text.length * d.audioMsPerChar);
    let firstPiece = true;
    while (left > 0 && mine === epoch) {
      const ms = Math.min(d.chunkMs, left);
      send({ audio: toneBytes(rate, ms).toString('base64'), sampleRate: rate, isFinal: false, ...(firstPiece ? { held_ms: epochNow() - started, first_of_utterance: first } : {}) });
      // Only the first generation of an utterance is on the caller's wait (later ones overlap
      // playout); its hold ends once its first audio is written (see `Hold`).
      if (firstPiece && first) record(call, 'tts', d.ttsMs, started);
      firstPiece = false;
      left -= ms;
      if (left > 0) await sleep(ms / d.realtimeFactor);
    }
  };
  ws.on('message', (data) => {
    const arrived = epochNow();
    const m = JSON.parse(data.toString()) as { type?: string; text?: string; flush?: boolean; voice_id?: string; output_format?: string };
    if (m.type === 'initConnection') {
      call = m.voice_id ?? '';
      rate = Number((m.output_format ?? 'pcm_24000').slice(4));
      send({ type: 'connectionInitialized' });
    } else if (m.type === 'text') {
      const mine = epoch;
      if (m.text?.trim()) chain = chain.then(generate(m.text, mine, arrived));
      if (m.flush) {
        chain = chain.then(() => {
          if (mine !== epoch) return;
          send({ audio: '', sampleRate: rate, isFinal: true });
          utteranceStarted = true;
        });
      }
    } else if (m.type === 'clear') {
      epoch++;
      utteranceStarted = true;
      send({ audio: '', sampleRate: rate, isFinal: true });
    } else if (m.type === 'closeConnection') {
      ws.close(1000);
    }
  });
}
