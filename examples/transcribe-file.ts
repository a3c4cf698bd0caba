/** Transcribes a WAV file with word confidence and per-turn analysis. */
import { readFile } from 'node:fs/promises';
import { connect } from './_connect.ts';

const path = process.argv[2];
if (!path) {
  console.error('usage: examples/transcribe-file.ts FILE.wav');
  process.exit(2);
}
const { client, close } = await connect();
try {
  const result = await client.transcribe({
    file: { data: await readFile(path), filename: path, contentType: 'audio/wav' },
    return_confidence: true,
    return_turns: true,
  });
  console.log(`text: ${result.transcription || '(nothing recognized)'}`);
  for (const w of result.timestamps) console.log(`  ${w.start.toFixed(2)}–${w.end.toFixed(2)} ${w.word} (${w.confidence.toFixed(2)})`);
  for (const t of result.turns) console.log(`turn ${t.turn_id}: complete=${t.is_complete} p=${t.turn_probability}`);
} finally {
  await close();
}
