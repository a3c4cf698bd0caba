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
