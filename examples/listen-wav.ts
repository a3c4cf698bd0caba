/**
 * Streams an audio file (any format; decoded to 16 kHz mono as it is sent) to the live /listen
 * socket at real-time pace and prints the events: interim and final transcripts, utterance ends,
 * warnings, and the billing Metadata on close. The file is decoded 20 ms at a time as the socket
 * takes it, so an hour-long MP3 takes no more memory than a short one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { openAudioStream } from '../src/audio/decode.ts';
import { audioArgument, withService } from './_connect.ts';

const sampleRate = 16000;
const { path } = await audioArgument('FILE (WAV of any rate and channels, MP3, OGG, M4A…)', sampleRate);
await withService(async ({ client }) => {
  const sock = await client.openListen({ sample_rate: sampleRate, interim_results: true });
  sock.events$.subscribe((e) => {
    if (e.type === 'Results') console.log(`${e.is_final ? 'final  ' : 'interim'} ${e.transcript || '(nothing recognized)'}`);
    else if (e.type === 'UtteranceEnd') console.log(`utterance end at ${e.last_word_end}s`);
    else if (e.type === 'SpeechStarted') console.log(`speech started at ${e.ts}s`);
    else if (e.type === 'Metadata' && e.phase === 'warning') console.log(`warning: ${e.warning}`);
    else if (e.type === 'Error') console.log(`error ${e.code}: ${e.message}`);
  });
  const audio = await openAudioStream(path, { rate: sampleRate, frameMs: 20 });
  const started = Date.now();
  let sent = 0;
  for await (const frame of audio) {
    sock.sendAudio(frame);
    sent += frame.length;
    await sleep(Math.max(0, started + (sent / sampleRate) * 1000 - Date.now()));
  }
  sock.sendAudio(new Int16Array(sampleRate)); // one second of trailing silence ends the turn
  const closing = await sock.finish();
  console.log(`billed ${closing?.audio_seconds_billed ?? '?'} s over ${closing?.turn_count ?? '?'} turn(s)`);
});
