import type { WebSocket } from 'ws';
import { setTimeout as sleep } from 'node:timers/promises';
import { findModel } from '../catalogue.ts';
import { HttpError } from '../http/errors.ts';
import type { KeyState, Region } from '../keys.ts';
import { ttsCost } from '../pricing.ts';
import type { SandboxState } from '../state.ts';
import { closeReason } from './close-reason.ts';

const FORMATS: Record<string, number> = { pcm_8000: 8000, pcm_16000: 16000, pcm_22050: 22050, pcm_24000: 24000 };
const CHUNK_S = 0.1;
/** Audio leaves faster than real time, as a cloud engine's would, but not all at once. */
const PACE = 8;
const SENTENCE_END = /[.!?؟\n…]\s*$/u;

interface Init {
  voiceId: string;
  rate: number;
  speed: number | undefined;
}

/**
 * The streaming TTS socket: initConnection first, text buffered until flush, a trigger or a
 * finished sentence; `clear` drops the buffer and stops audio of text already generating.
 */
export function serveTts(ws: WebSocket, handshakeKey: string | undefined, region: Region, state: SandboxState): void {
  let init: Init | undefined;
  let key: KeyState | undefined;
  let release: (() => void) | undefined;
  let buffer = '';
  let epoch = 0;
  let queue: Promise<void> = Promise.resolve();
  const send = (m: object): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
  };
  const error = (errorCode: number, errorMessage: string) => send({ type: 'error', errorCode, errorMessage });
  const fatal = (errorCode: number, errorMessage: string) => {
    error(errorCode, errorMessage);
    ws.close(1008, closeReason(errorMessage));
  };

  // A stalled socket stops its audio mid-generation and then says nothing more.
  const stall = state.takeFault('ttsStall');
  let stalled = false;
  let audioSent = 0;
  const generate = (text: string, final: boolean) => {
    const mine = epoch;
    const { voiceId, rate, speed } = init!;
    queue = queue.then(async () => {
      if (mine !== epoch || ws.readyState !== ws.OPEN || stalled) return;
      if (state.faults.ttsSocketSilent) return;
      if (text.trim()) {
        if (!key!.spend(ttsCost(text))) return fatal(40201, 'Insufficient wallet balance');
        const out = await state.synthesize(text, voiceId, { speed, sampleRate: rate });
        const step = Math.round(rate * CHUNK_S);
        // Paced on the wall clock from the first chunk, not by a sleep per chunk: on a loaded
        // machine a 12 ms timer fires hundreds of ms late, and one chunk per wake-up ran slower
        // than real time (the client's playout ran dry a syllable into the greeting). A late
        // wake-up sends every chunk that is due.
        const started = performance.now();
        for (let at = 0, i = 1; at < out.pcm.length; at += step, i++) {
          if (mine !== epoch || ws.readyState !== ws.OPEN || stalled) return;
          if (stall && (audioSent += step / rate) > stall.afterAudioS) {
            stalled = true;
            return;
          }
          const piece = out.pcm.subarray(at, at + step);
          const last = at + step >= out.pcm.length;
          const isFinal = state.quirks.ttsIsFinalOnBatches || (final && last && state.quirks.ttsNoEndMarker);
          send({ audio: Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength).toString('base64'), sampleRate: rate, isFinal });
          const wait = started + (i * CHUNK_S * 1000) / PACE - performance.now();
          if (wait > 0) await sleep(wait);
        }
      }
      if (final && mine === epoch && !stalled && !state.quirks.ttsNoEndMarker) send({ audio: '', sampleRate: rate, isFinal: true });
    }).catch((err) =>
      err instanceof HttpError ? error(Number(err.errorCode), err.message) : error(50001, `generation failed: ${(err as Error).message}`),
    );
  };
  // A socket that never authenticates must not hold a connection for ever.
  const initTimer = setTimeout(() => {
    if (!init) fatal(40801, `initConnection not received within ${state.limits.ttsInitMs / 1000} s`);
  }, state.limits.ttsInitMs);

  const onInit = (m: Record<string, unknown>) => {
    if (init) return error(40001, 'connection is already initialized');
    const k = handshakeKey ?? (typeof m.x_api_key === 'string' ? m.x_api_key : undefined);
    key = state.keys.lookup(k, region);
    if (!key || state.faults.ttsSocketAuthFails) return fatal(40101, 'Invalid API key');
    if (!key.may('/websocket/text-to-speech')) return fatal(40301, 'Access denied: this key cannot call /websocket/text-to-speech');
    const voiceId = m.voice_id;
    if (typeof voiceId !== 'string' || !voiceId) return error(40001, 'voice_id is required');
    if (!state.voices.has(voiceId)) return error(40001, `voice_id ${voiceId} does not exist`);
    const format = (m.output_format as string | undefined) ?? 'pcm_24000';
    if (!FORMATS[format]) return error(40001, `output_format must be one of ${Object.keys(FORMATS).join(', ')}`);
    const settings = (m.voice_settings ?? {}) as Record<string, unknown>;
    const speed = settings.speed as number | undefined;
    if (speed !== undefined && (typeof speed !== 'number' || speed < 0.7 || speed > 1.2)) return error(40001, 'speed must be a number between 0.7 and 1.2');
    const stability = settings.stability as number | undefined;
    if (stability !== undefined && (typeof stability !== 'number' || stability < 0 || stability > 1)) {
      return error(40001, 'stability must be a number between 0 and 1');
    }
    const modelId = (m.model_id as string | undefined) ?? 'tts-v1-preview';
    if (!findModel(modelId, 'tts')) return error(40401, `Model not found: ${modelId}`);
    release = key.acquire();
    if (!release) return fatal(42901, 'Concurrency limit exceeded');
    init = { voiceId, rate: FORMATS[format]!, speed };
    send({ type: 'connectionInitialized' });
  };

  const onText = (m: Record<string, unknown>) => {
    if (!init) return error(40001, 'initConnection must be sent before text');
    if (typeof m.text !== 'string') return error(40001, 'text is required');
    buffer += m.text;
    if (m.flush === true) {
      const text = buffer;
      buffer = '';
      return generate(text, true);
    }
    if (m.try_trigger_generation === true || (SENTENCE_END.test(buffer) && buffer.trim().length >= 20) || buffer.length >= 250) {
      const text = buffer;
      buffer = '';
      if (text.trim()) generate(text, false);
    }
  };

  ws.on('message', (data, binary) => {
    let m: Record<string, unknown>;
    try {
      if (binary) throw new Error('binary');
      m = JSON.parse(data.toString()) as Record<string, unknown>;
      if (!m || typeof m !== 'object' || Array.isArray(m)) throw new Error('not an object');
    } catch {
      return error(40001, 'messages must be JSON objects');
    }
    switch (m.type) {
      case 'initConnection':
        return onInit(m);
      case 'text':
        return onText(m);
      case 'clear':
        buffer = '';
        epoch++;
        return;
      case 'closeConnection':
        return void queue.then(() => ws.close(1000, 'closed by client'));
      default:
        return error(40001, `unknown message type ${JSON.stringify(m.type)}`);
    }
  });
  ws.on('close', () => {
    clearTimeout(initTimer);
    epoch++;
    release?.();
  });
  ws.on('error', () => {});
}
