import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { WebSocket } from 'ws';
import { SttStage, type SttEvent } from '../../src/pipeline/stt.ts';
import { VirtualClock } from '../../src/transport/clock.ts';
import { until } from '../helpers/deadline.ts';
import { startFake, type Fake } from '../helpers/fake-service.ts';

/** Bytes of audio each /listen connection received; the first one fails with 1011 mid-speech. */
const connections: number[] = [];
function listenPeer(ws: WebSocket): void {
  const index = connections.push(0) - 1;
  const send = (o: object) => ws.send(JSON.stringify(o));
  send({ type: 'Metadata', session_id: `s${index}`, correlation_id: null, model: 'asr', protocol_version: 1, channels: 1, sample_rate: 16000, dropped_hotwords: [] });
  ws.on('message', (data, binary) => {
    if (binary) {
      connections[index]! += (data as Buffer).length;
      // The first connection dies after 0.4 s of audio, before any final.
      if (index === 0 && connections[0]! >= 12800) ws.close(1011, 'internal error');
      return;
    }
    const msg = JSON.parse(data.toString());
    if (msg.type === 'CloseStream') {
      const w = [{ word: 'أريد', start: 0.1, end: 0.5 }, { word: 'رصيدي', start: 0.6, end: 0.9 }];
      send({ type: 'Results', channel: 0, turn_id: 0, transcript: 'أريد رصيدي', words: w, is_final: true, speech_final: true, language: 'ar', confidence: 0.9 });
      send({ type: 'Metadata', session_id: `s${index}`, audio_seconds_billed: 1, turn_count: 1 });
      ws.close(1000);
    }
  });
}

let fake: Fake;
before(async () => (fake = await startFake({}, { '/listen': listenPeer })));
after(() => fake.close());

test('stt stage: a dropped /listen reconnects and replays the caller audio since the last final', async () => {
  const clock = new VirtualClock(10_000);
  const stage = new SttStage(fake.client(), 16000, { sample_rate: 16000, interim_results: true }, clock);
  const events: SttEvent[] = [];
  stage.events$.subscribe((e) => events.push(e));
  await stage.start();
  // One second of caller audio in 20 ms frames, captured on the (virtual) clock.
  for (let i = 0; i < 50; i++) {
    stage.push({ samples: new Int16Array(320).fill(i + 1), sampleRate: 16000, time: clock.now() });
    await clock.advance(20);
    await new Promise((r) => setTimeout(r, 4));
  }
  await until(() => events.some((e) => e.type === 'reconnected'), 'the stage to reconnect');
  await stage.finish();
  const kinds = events.map((e) => e.type);
  assert.deepEqual(kinds.filter((k) => k !== 'listen'), ['reconnecting', 'reconnected']);
  assert.equal(connections.length, 2);
  assert.ok(connections[0]! >= 12800 && connections[0]! < 32000, 'the first connection died mid-speech');
  assert.equal(connections[1], 32000, 'the second connection got the whole second, replayed then live');
  const final = events.find((e) => e.type === 'listen' && e.event.type === 'Results')!;
  assert.ok(final.type === 'listen' && final.event.type === 'Results' && final.event.words[1]!.end === 0.9, 'replayed from the start: times unshifted');
  // Session seconds map back to capture times on the clock.
  assert.equal(stage.timeOf(0.9), 10_000 + 900);
});

test('stt stage: a final from a server running behind releases only the audio its words cover; a drop replays the rest', async () => {
  // The server hears 3 s of audio, then sends the final of words that end at 1.0 s (it runs 2 s
  // behind, as a loaded machine's sandbox does) and drops the connection: the 2 s it had not
  // turned into words yet (a line spoken over the agent) must be replayed to the next one.
  const got: number[] = [];
  const lagging = await startFake({}, {
    '/listen': (ws: WebSocket) => {
      const index = got.push(0) - 1;
      const send = (o: object) => ws.send(JSON.stringify(o));
      send({ type: 'Metadata', session_id: `lag${index}`, correlation_id: null, model: 'asr', protocol_version: 1, channels: 1, sample_rate: 16000, dropped_hotwords: [] });
      ws.on('message', (data, binary) => {
        if (!binary) return void (JSON.parse(data.toString()).type === 'CloseStream' && ws.close(1000));
        got[index]! += (data as Buffer).length;
        if (index === 0 && got[0] === 96000) {
          const w = [{ word: 'أريد', start: 0.2, end: 0.6 }, { word: 'رصيدي', start: 0.7, end: 1.0 }];
          send({ type: 'Results', channel: 0, turn_id: 0, transcript: 'أريد رصيدي', words: w, is_final: true, speech_final: true, language: 'ar', confidence: 0.9 });
          ws.close(1011, 'internal error');
        }
      });
    },
  });
  try {
    const clock = new VirtualClock(0);
    // Every 20 ms frame its own message (uplinkFrameMs 0): the fake counts the bytes it heard.
    const stage = new SttStage(lagging.client(), 16000, { sample_rate: 16000, interim_results: true, uplinkFrameMs: 0 }, clock);
    const events: SttEvent[] = [];
    stage.events$.subscribe((e) => events.push(e));
    await stage.start();
    for (let i = 0; i < 150; i++) {
      stage.push({ samples: new Int16Array(320).fill(1000), sampleRate: 16000, time: clock.now() });
      await clock.advance(20);
      await new Promise((r) => setTimeout(r, 2));
    }
    await until(() => got[1]! >= 80000, 'the replay on the next connection');
    await stage.finish();
    const reconnected = events.find((e) => e.type === 'reconnected');
    assert.ok(reconnected?.type === 'reconnected', 'the stage reconnected');
    assert.equal(reconnected.replayedSeconds, 2.5, "replayed from half a second before the final's last word");
    assert.equal(got[1], 80000, 'the next connection got those 2.5 s');
  } finally {
    await lagging.close();
  }
});
