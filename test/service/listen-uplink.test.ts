import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '../helpers/deadline.ts';
import { startFake } from '../helpers/fake-service.ts';

test('/listen gathers frames into uplinkFrameMs messages and flushes the rest before CloseStream', async () => {
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
    const socket = await fake.client().openListen({ sample_rate: 8000, uplinkFrameMs: 100 });
    const frame = new Int16Array(160).fill(7);
    for (let i = 0; i < 7; i++) socket.sendAudio(frame); // 140 ms: one 100 ms message, 40 ms pending
    await socket.finish();
    assert.deepEqual(sizes, [1600, 640]);
  } finally {
    await fake.close();
  }
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
