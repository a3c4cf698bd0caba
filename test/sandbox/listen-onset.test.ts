/**
 * The sandbox's empty finals for a caller line spoken over the agent (seen in the telephony
 * barge-in tests on a loaded machine). Root cause, from a /listen stream captured in such a run:
 * every frame of the line arrived, in order; but Silero VAD stayed under its threshold for the
 * line's soft first syllable (0.07-0.48 for half a second after 12 s of digital silence, at one
 * alignment of the line to its 32 ms windows), so the turn started 0.54 s late and the audio given
 * to the recognizer, cut 150 ms before that start, had lost "كم": it matched nothing. Load only
 * moves where the line falls; the fix is a pre-roll (src/sandbox/ws/listen-session.ts).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mulaw } from '../../src/audio/g711.ts';
import { pad, runSandbox, voiced, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => {
  sb = await runSandbox();
});
after(() => sb.close());

/** The finals of one /listen stream sent at once (the sandbox times speech on audio, not the wall). */
async function finals(pcm: Int16Array): Promise<string[]> {
  const listen = await sb.client.openListen({ sample_rate: 8000, interim_results: true, endpointing: 600 });
  await listen.opened();
  const out: string[] = [];
  listen.events$.subscribe((e) => {
    if (e.type === 'Results' && e.is_final) out.push(e.transcript);
  });
  for (let i = 0; i < pcm.length; i += 160) listen.sendAudio(pcm.subarray(i, i + 160));
  await listen.finish();
  return out;
}

test('a line whose first syllable the VAD hears half a second late is still recognized whole', async () => {
  // The captured call: the caller's line at 6.88 s, the same line again (the barge-in) at 20.44 s,
  // both as Twilio/Plivo deliver them (8 kHz mu-law in 20 ms frames), silence between.
  const line = mulaw.decode(mulaw.encode(pad(await voiced(sb.client, 'كم رصيدي', 8000), 8000, 0.2, 1.0)));
  const call = new Int16Array(163_520 + line.length);
  call.set(line, 55_040);
  call.set(line, 163_520);
  assert.deepEqual(await finals(call), ['كم رصيدي', 'كم رصيدي']);
});

test('the pre-roll never reaches back into the turn before: two lines close together stay two turns', async () => {
  const a = mulaw.decode(mulaw.encode(await voiced(sb.client, 'كم رصيدي', 8000)));
  const b = mulaw.decode(mulaw.encode(await voiced(sb.client, 'بطاقتي ضاعت', 8000)));
  // 0.8 s between them: more than the endpointing (0.6 s), less than the pre-roll (1 s).
  const gap = 0.8 * 8000;
  const call = new Int16Array(4000 + a.length + gap + b.length + 12_000);
  call.set(a, 4000);
  call.set(b, 4000 + a.length + gap);
  assert.deepEqual(await finals(call), ['كم رصيدي', 'بطاقتي ضاعت']);
});
