/**
 * Streams an audio file (any format; resampled to 16 kHz mono) to the live /listen socket at
 * real-time pace and prints the events: interim and final transcripts, utterance ends, warnings,
 * and the billing Metadata on close.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { audioArgument, withService } from './_connect.ts';

const sampleRate = 16000;
const { audio } = await audioArgument('FILE (WAV of any rate and channels, MP3, OGG, M4A…)', sampleRate);
const { samples } = audio;
await withService(async ({ client }) => {
  const sock = await client.openListen({ sample_rate: sampleRate, interim_results: true });
  sock.events$.subscribe((e) => {
    if (e.type === 'Results') console.log(`${e.is_final ? 'final  ' : 'interim'} ${e.transcript || '(nothing recognized)'}`);
    else if (e.type === 'UtteranceEnd') console.log(`utterance end at ${e.last_word_end}s`);
    else if (e.type === 'SpeechStarted') console.log(`speech started at ${e.ts}s`);
    else if (e.type === 'Metadata' && e.phase === 'warning') console.log(`warning: ${e.warning}`);
    else if (e.type === 'Error') console.log(`error ${e.code}: ${e.message}`);
  });
  const frame = sampleRate / 50; // 20 ms
  const started = Date.now();
  for (let i = 0; i < samples.length; i += frame) {
    sock.sendAudio(samples.subarray(i, i + frame));
    const due = started + ((i + frame) / sampleRate) * 1000;
    await sleep(Math.max(0, due - Date.now()));
  }
  sock.sendAudio(new Int16Array(sampleRate)); // one second of trailing silence ends the turn
  const closing = await sock.finish();
  console.log(`billed ${closing?.audio_seconds_billed ?? '?'} s over ${closing?.turn_count ?? '?'} turn(s)`);
});
