/**
 * Streams a WAV file to the live /listen socket at real-time pace and prints the events:
 * interim and final transcripts, utterance ends, and the billing Metadata on close.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeWav } from '../src/audio/wav.ts';
import { connect } from './_connect.ts';

const path = process.argv[2];
if (!path) {
  console.error('usage: examples/listen-wav.ts FILE.wav (16 kHz or 8 kHz mono)');
  process.exit(2);
}
const { samples, sampleRate } = decodeWav(await readFile(path));
if (sampleRate !== 16000 && sampleRate !== 8000) {
  console.error(`the live socket takes 8 or 16 kHz audio; ${path} is ${sampleRate} Hz`);
  process.exit(2);
}
const { client, close } = await connect();
try {
  const sock = await client.openListen({ sample_rate: sampleRate, interim_results: true });
  sock.events$.subscribe((e) => {
    if (e.type === 'Results') console.log(`${e.is_final ? 'final  ' : 'interim'} ${e.transcript}`);
    else if (e.type === 'UtteranceEnd') console.log(`utterance end at ${e.last_word_end}s`);
    else if (e.type === 'SpeechStarted') console.log(`speech started at ${e.ts}s`);
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
} finally {
  await close();
}
