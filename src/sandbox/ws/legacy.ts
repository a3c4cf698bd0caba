import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { isSupportedRate, resample } from '../../audio/resample.ts';
import { concatPcm } from '../../audio/pcm.ts';
import type { KeyState } from '../keys.ts';
import { audioCost } from '../pricing.ts';
import type { SandboxState } from '../state.ts';
import { transcribeSamples } from '../transcriber.ts';
import { closeReason } from './close-reason.ts';

interface Format {
  rate: number;
  channels: number;
}

/** The PCM of a WAV chunk and its format; hand-read because a first chunk is often a partial file. */
function readWavChunk(bytes: Buffer): { format: Format; pcm: Buffer } | undefined {
  if (bytes.length < 12 || bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') return undefined;
  let at = 12;
  let format: Format | undefined;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('ascii', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'fmt ') {
      if (at + 24 > bytes.length || bytes.readUInt16LE(at + 8) !== 1 || bytes.readUInt16LE(at + 22) !== 16) return undefined; // PCM16 only
      format = { channels: bytes.readUInt16LE(at + 10), rate: bytes.readUInt32LE(at + 12) };
    } else if (id === 'data') {
      return format ? { format, pcm: bytes.subarray(at + 8, Math.min(bytes.length, at + 8 + size)) } : undefined;
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}

/** Why a WAV header's format cannot be transcribed, or undefined when it can. */
function formatProblem(f: Format): string | undefined {
  if (f.channels < 1 || f.channels > 8) return `unsupported channel count ${f.channels}: use 1 to 8`;
  if (!isSupportedRate(f.rate)) return `unsupported sample rate ${f.rate}`;
  return undefined;
}

function toMono(pcm: Buffer, channels: number): Int16Array {
  const n = Math.floor(pcm.length / 2 / channels);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let c = 0; c < channels; c++) s += pcm.readInt16LE(2 * (i * channels + c));
    out[i] = Math.round(s / channels);
  }
  return out;
}

export interface Refusal {
  status: number;
  errorCode: number;
  errorMessage: string;
}

/** Why a key may not open the legacy socket, if it may not. */
export function legacyRefusal(key: KeyState | undefined): Refusal | undefined {
  if (!key) return { status: 401, errorCode: 40101, errorMessage: 'Invalid API key' };
  if (!key.may('/websocket/speech-to-text')) return { status: 403, errorCode: 40301, errorMessage: 'Access denied: this key cannot call /websocket/speech-to-text' };
  return undefined;
}

/** Answers an upgrade request with an HTTP error and the service's JSON error body. */
export function refuseUpgrade(socket: Duplex, r: Refusal): void {
  const body = JSON.stringify({ errorCode: r.errorCode, errorMessage: r.errorMessage });
  const reason = r.status === 401 ? 'Unauthorized' : 'Forbidden';
  socket.end(`HTTP/1.1 ${r.status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

/**
 * The deprecated socket: a WAV header first, byte arrays, cumulative transcripts, end_of_stream.
 * Each later chunk may be raw PCM or a whole WAV file (both seen from real clients), and a
 * transcription (interim or final) goes out only when the transcript has changed. `wire` is the
 * upgraded connection (its bytes read tell the idle rule a long message is still arriving).
 */
export function serveLegacy(ws: WebSocket, url: URL, key: KeyState | undefined, state: SandboxState, wire: { readonly bytesRead: number } = { bytesRead: 0 }): void {
  const refusal = legacyRefusal(key);
  if (refusal || !key) return void ws.close(1008, closeReason(refusal?.errorMessage ?? 'authentication failed'));
  const release = key.acquire();
  if (!release) return void ws.close(1008, 'concurrent session limit reached');
  const minBuffer = Math.min(5, Math.max(0.1, Number(url.searchParams.get('min_buffer_seconds') ?? 0.5) || 0.5));
  let format: Format | undefined;
  const parts: Int16Array[] = [];
  let samples = 0;
  let sinceInterim = 0;
  let lastSent = '';
  let chain: Promise<void> = Promise.resolve();
  const send = (m: object): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
  };

  const transcript = async (): Promise<string> => {
    if (!format || !samples) return '';
    const pcm16 = await resample(concatPcm(parts), format.rate, 16000);
    return (await transcribeSamples(state.recognizer, pcm16)).text;
  };

  // One failed transcription answers an error; it never escapes as an unhandled rejection.
  const enqueue = (job: () => Promise<void>) => {
    chain = chain.then(job).catch((err) => send({ event: 'transcription_error', data: `transcription failed: ${(err as Error).message}` }));
  };
  // An idle socket would hold one of its key's concurrent sessions for ever. Idle is judged on
  // what the client sent: Node runs due timers before it reads the sockets, so when this process
  // was busy or off the CPU the client's next message may be waiting unread. A due timer decides
  // after the next read (setImmediate runs after the poll phase): a message read meanwhile has
  // re-armed it, and bytes read of one still arriving (a 5 s chunk is 600 kB of JSON) count as
  // the client sending. While an end_of_stream is being answered the client is waiting for the
  // service, not idle, however long the backlog takes (as on /listen after CloseStream).
  let idle: NodeJS.Timeout | undefined;
  let touches = 0;
  let ending = 0;
  const touch = () => {
    clearTimeout(idle);
    if (ending > 0 || ws.readyState !== ws.OPEN) return;
    const ms = state.limits.legacyIdleMs;
    const seen = ++touches;
    const bytes = wire.bytesRead;
    idle = setTimeout(() => {
      setImmediate(() => {
        if (seen !== touches || ending > 0) return;
        if (wire.bytesRead > bytes) touch();
        else ws.close(1011, `no message for ${ms / 1000} s`);
      });
    }, ms);
  };
  touch();

  ws.on('message', (data) => {
    touch();
    let m: { event?: string; data?: { audioBuffer?: unknown }; audioBuffer?: unknown };
    try {
      m = JSON.parse(data.toString());
      if (!m || typeof m !== 'object' || Array.isArray(m)) throw new Error('not an object');
    } catch {
      return send({ event: 'transcription_error', data: 'messages must be JSON objects' });
    }
    if (m.event === 'end_of_stream') {
      ending++;
      clearTimeout(idle);
      enqueue(async () => {
        const text = await transcript();
        if (format) key.spend(audioCost(samples / format.rate));
        // The final transcription goes out only when it says something new: real clients take
        // every transcription as news, so an unchanged one would reach them twice. `finalized`
        // (which carries the text too) always closes the stream.
        if (text !== lastSent) send({ event: 'transcription', data: text, isFinal: true });
        lastSent = text;
        send({ event: 'finalized', data: text });
      });
      // Answered (or failed): from here a silent client is idle again.
      chain = chain.finally(() => {
        ending--;
        touch();
      });
      return;
    }
    const arr = (m.data && typeof m.data === 'object' ? m.data.audioBuffer : undefined) ?? m.audioBuffer;
    if (!Array.isArray(arr) || arr.some((b) => !Number.isInteger(b) || b < 0 || b > 255)) {
      return send({ event: 'transcription_error', data: 'audioBuffer must be an array of byte values 0 to 255' });
    }
    const bytes = Buffer.from(arr as number[]);
    const wav = readWavChunk(bytes);
    if (!format && !wav) return send({ event: 'transcription_error', data: 'the first audio chunk must be a PCM16 WAV file with headers' });
    if (wav) {
      const problem = formatProblem(wav.format);
      if (problem) return send({ event: 'transcription_error', data: problem });
      if (format && (wav.format.rate !== format.rate || wav.format.channels !== format.channels)) {
        return send({ event: 'transcription_error', data: 'every WAV chunk must have the format of the first' });
      }
      format = wav.format;
    }
    const pcm = toMono(wav ? wav.pcm : bytes, format!.channels);
    parts.push(pcm);
    samples += pcm.length;
    sinceInterim += pcm.length / format!.rate;
    if (sinceInterim >= minBuffer) {
      sinceInterim = 0;
      enqueue(async () => {
        const text = await transcript();
        if (text === lastSent) return;
        lastSent = text;
        send({ event: 'transcription', data: text, isFinal: false });
      });
    }
  });
  ws.on('close', () => {
    clearTimeout(idle);
    release();
  });
  ws.on('error', () => {});
}
