/**
 * The fake service's `/listen` (see fake-service.ts): end of speech found by energy (a 20 ms
 * piece of a message whose mean absolute sample is above `SPEECH_LEVEL` is speech); SpeechStarted when speech
 * starts, an interim every 200 ms of speech, and the final (is_final + speech_final, then
 * UtteranceEnd) `sttMs` after the first silent audio after speech arrived.
 */
import { performance } from 'node:perf_hooks';
import type { WebSocket } from 'ws';
import type { FakeDelays, RecordHold } from './fake-service.ts';

/** Mean absolute sample above which a frame is speech. */
export const SPEECH_LEVEL = 500;

/** The caller's words in every final transcript. */
export const FAKE_TRANSCRIPT = 'أريد معرفة رصيد حسابي';

const epochNow = () => performance.timeOrigin + performance.now();

/** Serves one /listen socket: the call is named by its first hotword. */
export function fakeListen(ws: WebSocket, q: URLSearchParams, d: FakeDelays, record: RecordHold): void {
  const call = q.get('hotwords')?.split(',')[0] ?? '';
  const rate = Number(q.get('sample_rate') ?? 16000);
  /** Samples in 20 ms: the piece whose level decides speech. */
  const piece = Math.max(1, Math.round(rate / 50));
  const send = (m: object) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(m));
  let samples = 0;
  let speechStart: number | undefined;
  let speechEnd = 0;
  let lastInterim = 0;
  let turnId = 0;
  let turns = 0;
  send({ type: 'Metadata', session_id: `bench-${call}`, model: q.get('model') ?? 'asr', sample_rate: rate, dropped_hotwords: [] });
  ws.on('message', (data, isBinary) => {
    // The hold counts from here: the fake's own reading of the audio is not the agent's time.
    const arrived = epochNow();
    if (!isBinary) {
      const msg = JSON.parse(data.toString()) as { type?: string };
      if (msg.type === 'CloseStream') {
        send({ type: 'Metadata', session_id: `bench-${call}`, audio_seconds_billed: samples / rate, turn_count: turns });
        ws.close(1000);
      }
      return;
    }
    // A frame read together with an odd-length one before it can start at an odd offset
    // (it crashed the fake at load 28): a view needs two-byte alignment, else a copy.
    const buf = (data as Buffer).byteOffset % 2 ? Buffer.from(data as Buffer) : (data as Buffer);
    const pcm = new Int16Array(buf.buffer, buf.byteOffset, buf.byteLength >> 1);
    // Judged 20 ms at a time, as a streaming recognizer's own VAD hears the stream, whatever the
    // message size: hiwar's uplink sends the start of speech at once together with the quiet audio
    // gathered before it (up to 80 ms), and judging such a message as one piece heard the speech
    // only in the next message, 100 ms later (about half the barge-ins in the Twilio bench).
    for (let off = 0; off < pcm.length; off += piece) {
      const end = Math.min(pcm.length, off + piece);
      // Energy on every 4th sample: enough to tell a tone from silence, and nearly free.
      let sum = 0;
      let n = 0;
      for (let i = off; i < end; i += 4, n++) sum += Math.abs(pcm[i]!);
      const loud = n > 0 && sum / n > SPEECH_LEVEL;
      const t0 = samples / rate;
      samples += end - off;
      const t1 = samples / rate;
      if (loud) {
        if (speechStart === undefined) {
          speechStart = t0;
          lastInterim = t0;
          send({ type: 'SpeechStarted', channel: 0, ts: t0 });
          // Held from the message's arrival: the fake's own reading of it.
          record(call, 'speech', 0, arrived);
        }
        speechEnd = t1;
        if (t1 - lastInterim >= 0.2) {
          lastInterim = t1;
          send({ type: 'Results', channel: 0, turn_id: turnId, transcript: FAKE_TRANSCRIPT.split(' ')[0], words: [{ word: 'أريد', start: speechStart, end: t1 }], is_final: false, speech_final: false, confidence: 0.9 });
        }
        continue;
      }
      if (speechStart === undefined) continue;
      const start = speechStart;
      const last = speechEnd;
      const id = turnId++;
      speechStart = undefined;
      turns++;
      const words = FAKE_TRANSCRIPT.split(' ').map((word, i, all) => ({
        word, start: start + ((last - start) * i) / all.length, end: start + ((last - start) * (i + 1)) / all.length, confidence: 0.95,
      }));
      setTimeout(() => {
        send({ type: 'Results', channel: 0, turn_id: id, transcript: FAKE_TRANSCRIPT, words, is_final: true, speech_final: true, confidence: 0.95, held_ms: epochNow() - arrived });
        // Ended once the final is written (see `Hold`); UtteranceEnd follows it, off the turn's path.
        record(call, 'stt', d.sttMs, arrived);
        send({ type: 'UtteranceEnd', channel: 0, turn_id: id, last_word_end: last });
      }, d.sttMs);
    }
  });
}
