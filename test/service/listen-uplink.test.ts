import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '../helpers/deadline.ts';
import { startFake } from '../helpers/fake-service.ts';

/** The sizes of the audio messages a fake /listen receives for `frames` quiet 20 ms frames at 8 kHz. */
async function quietMessageSizes(frames: number, opts: { uplinkFrameMs?: number; uplinkQuietFrameMs?: number }): Promise<number[]> {
  const sizes: number[] = [];
  const fake = await startFake({}, {
    '/listen': (ws) => {
      ws.send(JSON.stringify({ type: 'Metadata', session_id: 's', sample_rate: 8000 }));
      ws.on('message', (d, binary) => {
        if (binary) return void sizes.push((d as Buffer).byteLength);
        if (JSON.parse(d.toString()).type === 'CloseStream') {
          ws.send(JSON.stringify({ type: 'Metadata', session_id: 's', audio_seconds_billed: 0.1, turn_count: 0 }));
          ws.close(1000);
        }
      });
    },
  });
  try {
    const socket = await fake.client().openListen({ sample_rate: 8000, ...opts });
    const frame = new Int16Array(160).fill(7);
    for (let i = 0; i < frames; i++) socket.sendAudio(frame);
    await socket.finish();
    return sizes;
  } finally {
    await fake.close();
  }
}

test('/listen gathers quiet before any speech into 200 ms messages and flushes the rest before CloseStream', async () => {
  // 260 ms of line noise: one 200 ms message, 60 ms sent by finish().
  assert.deepEqual(await quietMessageSizes(13, {}), [3200, 960]);
});

test('/listen gathers into uplinkFrameMs messages where uplinkQuietFrameMs is no longer', async () => {
  // 140 ms: one 100 ms message, 40 ms pending until finish().
  assert.deepEqual(await quietMessageSizes(7, { uplinkFrameMs: 100, uplinkQuietFrameMs: 100 }), [1600, 640]);
});

test('/listen refuses an uplinkQuietFrameMs longer than the protocol allows', async () => {
  await assert.rejects(quietMessageSizes(1, { uplinkQuietFrameMs: 250 }), /uplinkQuietFrameMs must be from 0 to 200/);
});

test('/listen sends each frame as given with uplinkFrameMs 0', async () => {
  const sizes: number[] = [];
  const fake = await startFake({}, {
    '/listen': (ws) => {
      ws.on('message', (d, binary) => binary && sizes.push((d as Buffer).byteLength));
    },
  });
  try {
    const socket = await fake.client().openListen({ sample_rate: 8000, uplinkFrameMs: 0 });
    for (let i = 0; i < 3; i++) socket.sendAudio(new Int16Array(160));
    await until(() => sizes.length >= 3, 'the three frames at the fake');
    assert.deepEqual(sizes, [320, 320, 320]);
    socket.close();
  } finally {
    await fake.close();
  }
});

test('/listen: once the service says the turn ended (speech_final), the quiet after it goes in 200 ms messages', async () => {
  const sizes: number[] = [];
  let socketSent = 0;
  const fake = await startFake({}, {
    '/listen': (ws) => {
      ws.send(JSON.stringify({ type: 'Metadata', session_id: 's', sample_rate: 8000 }));
      ws.on('message', (d, binary) => {
        if (!binary) return;
        sizes.push((d as Buffer).byteLength);
        // After the first quiet message that follows speech: the turn's final.
        if (++socketSent === 3) ws.send(JSON.stringify({ type: 'Results', channel: 0, turn_id: 0, transcript: 'نعم', words: [], is_final: true, speech_final: true, language: 'ar', confidence: 0.9 }));
      });
    },
  });
  try {
    // No endpointing given: without the final, quiet after speech would be gathered to 100 ms for 5 s.
    const socket = await fake.client().openListen({ sample_rate: 8000 });
    await socket.opened();
    const final = new Promise<void>((resolve) => socket.events$.subscribe((e) => e.type === 'Results' && e.speech_final && resolve()));
    const loud = new Int16Array(160).fill(3000);
    const quiet = new Int16Array(160);
    socket.sendAudio(loud); // 1: the start of speech, alone
    for (let i = 0; i < 5; i++) socket.sendAudio(loud); // 2: 100 ms of speech
    socket.sendAudio(quiet); // 3: the end of speech, alone
    await final;
    for (let i = 0; i < 20; i++) socket.sendAudio(quiet); // 400 ms of settled quiet
    await until(() => sizes.length >= 5, 'the settled quiet');
    assert.deepEqual(sizes, [320, 1600, 320, 3200, 3200]);
    socket.close();
  } finally {
    await fake.close();
  }
});
