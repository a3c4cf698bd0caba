/** Transcribes an audio file (WAV, MP3, OGG, M4A…) with word confidence and per-turn analysis. */
import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { audioArgument, withService } from './_connect.ts';

// Decoding first checks the file is audio at all, before the service is called.
const { path } = await audioArgument('FILE (WAV, MP3, OGG, M4A…)', 16000);
// A Blob backed by the file: the upload streams from disk, the file is never held whole.
const file = new File([await openAsBlob(path)], basename(path));
await withService(async ({ client }) => {
  const result = await client.transcribe({
    file,
    return_confidence: true,
    return_turns: true,
  });
  console.log(`text: ${result.transcription || '(nothing recognized)'}`);
  for (const w of result.timestamps) console.log(`  ${w.start.toFixed(2)}–${w.end.toFixed(2)} ${w.word} (${w.confidence.toFixed(2)})`);
  for (const t of result.turns) console.log(`turn ${t.turn_id}: complete=${t.is_complete} p=${t.turn_probability}`);
  // The sandbox says when its closed-set recognizer did not know what was said.
  const note = (result as { sandbox?: { unrecognized_turns: number; note: string } }).sandbox;
  if (note?.unrecognized_turns) console.log(`warning: ${note.unrecognized_turns} turn(s) not recognized (${note.note})`);
});
