import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { filter, firstValueFrom } from '../helpers/rx.ts';
import type { WebSocket } from 'ws';
import { encodeWav } from '../../src/audio/wav.ts';
import { ServiceClient } from '../../src/service/index.ts';
import { KEY, startFake, type Fake, type Recorded } from '../helpers/fake-service.ts';

function legacyPeer(ws: WebSocket, req: Recorded): void {
  const key = req.headers['x-api-key'] ?? req.query.get('token') ?? req.query.get('x-api-key') ?? String(req.headers.authorization ?? '').slice(7);
  if (key !== KEY) return ws.close(1008, 'unauthorized');
  let bytes = 0;
  let shapes: string[] = [];
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    const buf: number[] | undefined = m.data?.audioBuffer ?? m.audioBuffer;
    if (buf) {
      // A whole WAV chunk is reported with its rate and channels.
      const b = Buffer.from(buf);
      const riff = b.toString('ascii', 0, 4) === 'RIFF';
      shapes.push(`${m.event ?? 'bare'}${riff ? `:wav${b.readUInt32LE(24)}x${b.readUInt16LE(22)}` : ''}`);
      bytes += buf.length;
      ws.send(JSON.stringify({ event: 'transcription', data: 'نعم', isFinal: false }));
    }
    if (m.event === 'end_of_stream' && req.query.get('model') === 'mute') return;
    if (m.event === 'end_of_stream' && req.query.get('model') === 'backlog') {
      // A long stream's transcriptions still coming: 1.5 s in all, one every 100 ms.
      let n = 0;
      const next = () => {
        if (++n < 15) {
          ws.send(JSON.stringify({ event: 'transcription', data: `نعم ${n}`, isFinal: false }));
          setTimeout(next, 100);
        } else ws.send(JSON.stringify({ event: 'finalized', data: 'نعم كلها' }));
      };
      return next();
    }
    if (m.event === 'end_of_stream') {
      ws.send(JSON.stringify({ event: 'transcription', data: `نعم ${bytes} ${shapes.join(',')}`, isFinal: true }));
      ws.send(JSON.stringify({ event: 'finalized', data: `نعم ${bytes} ${shapes.join(',')}` }));
    }
  });
}

let fake: Fake;
before(async () => {
  fake = await startFake({}, { '/websocket/speech-to-text': legacyPeer });
});
after(() => fake.close());

const wav = encodeWav(new Int16Array(800), 16000);

test('WAV first, raw PCM after, end_of_stream → finalized with everything sent', async () => {
  const s = await fake.client().openLegacyStt({ model: 'asr', min_buffer_seconds: 0.2 });
  const interim = firstValueFrom(s.events$.pipe(filter((e) => e.type === 'transcription')));
  s.sendAudio(wav);
  s.sendAudio(new Uint8Array(320));
  assert.equal((await interim).type, 'transcription');
  const text = await s.end();
  assert.equal(text, `نعم ${wav.length + 320} audio_chunk:wav16000x1,audio_chunk`);
  assert.equal(fake.calls.at(-1)!.query.get('min_buffer_seconds'), '0.2');
  assert.throws(() => s.sendAudio(new Uint8Array(2)), /end_of_stream was already sent/);
  s.close();
});

test('chunks: "wav" sends every later chunk as a whole WAV file in the first one\'s format', async () => {
  const stereo8k = encodeWav(new Int16Array(1600), 8000, 2);
  const s = await fake.client().openLegacyStt({ chunks: 'wav' });
  s.sendAudio(stereo8k);
  s.sendAudio(new Uint8Array(640));
  s.sendAudio(encodeWav(new Int16Array(4), 8000, 2)); // already a WAV file: sent as it is
  assert.throws(() => s.sendAudio(new Uint8Array(3)), /whole PCM16 samples/);
  assert.match(await s.end(), / audio_chunk:wav8000x2,audio_chunk:wav8000x2,audio_chunk:wav8000x2$/);
  s.close();
});

test('the bare {audioBuffer} shape and token/bearer auth', async () => {
  for (const auth of ['token', 'bearer', 'query'] as const) {
    const s = await fake.client().openLegacyStt({ auth, shape: 'bare' });
    s.sendAudio(wav);
    assert.match(await s.end(), /bare:wav16000x1$/);
    s.close();
  }
  assert.equal(fake.calls.at(-3)!.query.get('token'), KEY);
});

test('the first chunk must be a WAV file', async () => {
  const s = await fake.client().openLegacyStt();
  assert.throws(() => s.sendAudio(new Uint8Array(320)), /first audio chunk must be a WAV file/);
  s.close();
});

test('a rejected key closes the socket; end() reports it instead of hanging', async () => {
  const s = await new ServiceClient({ apiKey: 'wrong-1', baseUrl: fake.baseUrl }).openLegacyStt();
  await assert.rejects(
    (async () => {
      await firstValueFrom(s.events$.pipe(filter((e) => e.type === 'closed')));
      return s.end();
    })(),
    /closed/,
  );
});

test('end() waits while the service is still sending transcriptions, and gives up on one that sends nothing', async () => {
  const busy = await fake.client().openLegacyStt({ model: 'backlog' });
  busy.sendAudio(wav);
  assert.equal(await busy.end(1000), 'نعم كلها', 'never a second without a message: still working');
  busy.close();
  const mute = await fake.client().openLegacyStt({ model: 'mute' });
  mute.sendAudio(wav);
  await assert.rejects(mute.end(300), /no finalized, and nothing from the service for 300 ms/);
  mute.close();
});
