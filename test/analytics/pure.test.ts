import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Subject } from '../helpers/rx.ts';
import { mixdown, rolesOf, splitRecording } from '../../src/analytics/channels.ts';
import { AnalyticsError, verdictOf } from '../../src/analytics/failures.ts';
import { jobIdFor, parseJob } from '../../src/analytics/job.ts';
import { CallRecorder } from '../../src/analytics/recorder.ts';
import { LocalFolderStore } from '../../src/analytics/store.ts';
import { buildSummary, type DiarizedTranscription } from '../../src/analytics/summary.ts';
import { postWebhook, signWebhook, verifyWebhook } from '../../src/analytics/webhook.ts';
import type { AudioFrame } from '../../src/audio/frame.ts';
import { decodeWav, encodeWav } from '../../src/audio/wav.ts';
import { errorForStatus, TransportError } from '../../src/service/errors.ts';
import type { PlaybackUpdate, Transport, TransportEvent } from '../../src/transport/types.ts';
import { startReceiver } from './harness.ts';

const job = parseJob({
  jobId: 'pcm-c1-1',
  call: { callId: 'c1', provider: 'pcm', from: '+971500000009' },
  agent: 'call-centre',
  endedAt: '2026-11-22T20:00:00.000Z',
  ended: 'caller hung up',
  outcome: 'caller-hangup',
  durationSeconds: 75,
  recording: { key: 'recordings/pcm-c1-1.wav', sampleRate: 16000, seconds: 75, channels: 2 },
  transcript: [{ role: 'user', text: 'كم رصيدي', at: 3 }],
});

describe('webhook signature', () => {
  it('is HMAC-SHA256 of "<timestamp>.<body>" in hex, and verifies only the same body, secret and a fresh timestamp', () => {
    const body = '{"a":"ب"}';
    const sig = signWebhook(body, 's3cret', 1_800_000_000);
    assert.equal(sig, `sha256=${createHmac('sha256', 's3cret').update(`1800000000.${body}`).digest('hex')}`);
    const headers = { 'x-hiwar-signature': sig, 'x-hiwar-timestamp': '1800000000' };
    assert.equal(verifyWebhook(body, headers, 's3cret', 300, 1_800_000_100), true);
    assert.equal(verifyWebhook(body, headers, 'other', 300, 1_800_000_100), false, 'another secret');
    assert.equal(verifyWebhook('{"a":"c"}', headers, 's3cret', 300, 1_800_000_100), false, 'another body');
    assert.equal(verifyWebhook(body, headers, 's3cret', 300, 1_800_000_400), false, 'too old: a replay');
    assert.equal(verifyWebhook(body, { 'x-hiwar-timestamp': '1800000000' }, 's3cret', 300, 1_800_000_000), false, 'unsigned');
    assert.equal(verifyWebhook(body, { ...headers, 'x-hiwar-signature': 'sha256=00' }, 's3cret', 300, 1_800_000_000), false);
  });

  it('delivery: 2xx is done, 5xx/429 retryable, 4xx refused for good, no answer retryable', async () => {
    const r = await startReceiver();
    try {
      await postWebhook({ url: r.url, secret: 'k' }, 'd-1', { x: 1 });
      assert.equal(r.deliveries.length, 1);
      assert.equal(r.deliveries[0]!.headers['x-hiwar-delivery'], 'd-1');
      assert.ok(verifyWebhook(r.deliveries[0]!.body, r.deliveries[0]!.headers, 'k'));
      for (const [status, retryable] of [[503, true], [429, true], [401, false], [404, false]] as const) {
        r.answer = status;
        const err = await postWebhook({ url: `${r.url}?token=secret-token`, secret: 'k' }, 'd-2', {}).catch((e: unknown) => e);
        assert.ok(err instanceof AnalyticsError);
        assert.equal(err.retryable, retryable, String(status));
        assert.doesNotMatch(err.message, /secret-token/, 'the query (a token) stays out of messages');
      }
      r.answer = 'hang';
      const slow = await postWebhook({ url: r.url, timeoutMs: 200 }, 'd-3', {}).catch((e: unknown) => e);
      assert.ok(slow instanceof AnalyticsError && slow.retryable);
    } finally {
      await r.close();
    }
    const refused = await postWebhook({ url: r.url }, 'd-4', {}).catch((e: unknown) => e);
    assert.ok(refused instanceof AnalyticsError && refused.retryable, 'connection refused is worth retrying');
  });
});

describe('failure verdicts', () => {
  const svc = (status: number, retryAfterMs?: number) =>
    errorForStatus({ status, errorCode: status * 100 + 1, errorMessage: 'x', endpoint: 'POST /audio/transcribe', retryAfterMs });

  it('402 parks, 429/5xx/network retry (with Retry-After), the rest fails', () => {
    const parked = verdictOf(svc(402));
    assert.equal(parked.action, 'park');
    assert.match(parked.reason, /^parked: .*402 40201 POST \/audio\/transcribe/);
    assert.deepEqual(verdictOf(svc(429, 1500)), { action: 'retry', reason: svc(429).message, retryAfterMs: 1500 });
    assert.equal(verdictOf(svc(502)).action, 'retry');
    assert.equal(verdictOf(svc(400)).action, 'fail');
    assert.equal(verdictOf(svc(401)).action, 'fail');
    assert.equal(verdictOf(new TransportError('x', 'network')).action, 'retry');
    assert.equal(verdictOf(new TransportError('x', 'timeout')).action, 'retry');
    assert.equal(verdictOf(new TransportError('x', 'aborted')).action, 'fail');
    assert.equal(verdictOf(new AnalyticsError('w', true, 10)).action, 'retry');
    assert.equal(verdictOf(new Error('boom')).action, 'fail');
  });
});

describe('jobs', () => {
  it('refuses bad data with the field named, and makes safe ids', () => {
    assert.throws(() => parseJob({ ...job, jobId: '../x' }), /not an analytics job: jobId: /);
    assert.throws(() => parseJob({ ...job, recording: { ...job.recording, channels: 1 } }), /recording\.channels/);
    assert.throws(() => parseJob('nope'), /not an analytics job/);
    const id = jobIdFor({ callId: 'CA/12 ?x', provider: 'twilio', parameters: {} }, new Date(5));
    assert.equal(id, 'twilio-CA_12__x-5');
    assert.doesNotThrow(() => parseJob({ ...job, jobId: id }));
  });
});

describe('summary', () => {
  const transcription: DiarizedTranscription = {
    transcriptionId: 't-1',
    transcription: 'أهلا كم رصيدي رصيدك ألف',
    diarization: { status: 'ok' },
    turns: [
      { start: 0.5, end: 1.5, text: 'أهلا', sentiment: { label: 'positive', score: 0.8 }, gender: { label: 'female', score: 0.9 } },
      { start: 2, end: 3, text: 'كم رصيدي', sentiment: { label: 'negative', score: 0.7 }, gender: { label: 'male', score: 0.9 } },
      { start: 4, end: 6, text: 'رصيدك ألف', sentiment: { label: 'neutral', score: 0.6 }, gender: { label: 'female', score: 0.8 } },
    ],
    utterances: [
      { speaker: 1, start: 0.5, end: 1.5, text: 'أهلا' },
      { speaker: 0, start: 2, end: 3, text: 'كم رصيدي' },
      { speaker: 1, start: 4, end: 6, text: 'رصيدك ألف' },
      { speaker: 0, start: 7, end: 7.2, text: '' },
    ],
  };
  const roles = new Map([[0, 'caller' as const], [1, 'agent' as const]]);

  it('lists the diarized turns with their side, labels, talk time, keywords and an Arabic paragraph', () => {
    const s = buildSummary({
      job,
      recordingLocation: '/r/pcm-c1-1.wav',
      transcription,
      sentiment: { sentiment: 'neutral', score: 0.6 },
      minutes: { summary: 'سأل العميل عن رصيده.' },
      keywords: { keywords: [{ keyword: 'رصيد', score: 0.5 }, { keyword: 'ألف' }] },
      roles,
    });
    assert.deepEqual(s.turns.map((t) => [t.role, t.speaker, t.text, t.sentiment?.label, t.gender?.label]), [
      ['agent', 1, 'أهلا', 'positive', 'female'],
      ['caller', 0, 'كم رصيدي', 'negative', 'male'],
      ['agent', 1, 'رصيدك ألف', 'neutral', 'female'],
    ]);
    assert.deepEqual(s.speakers, [{ speaker: 1, role: 'agent', talkSeconds: 3 }, { speaker: 0, role: 'caller', talkSeconds: 1 }]);
    assert.deepEqual(s.sentiment, { overall: 'neutral', score: 0.6, caller: 'negative', agent: 'neutral' });
    assert.deepEqual(s.gender, { caller: 'male', agent: 'female' });
    assert.deepEqual(s.keywords, ['رصيد', 'ألف']);
    assert.equal(s.summaryAr, 'مكالمة من +971500000009 مع الوكيل «call-centre» مدتها 1 دقيقة و15 ثانية، أنهاها المتصل. قال المتصل: «كم رصيدي». انطباع المتصل العام: سلبي. الكلمات المفتاحية: رصيد، ألف. الخلاصة: سأل العميل عن رصيده.');
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s, 'plain JSON');
  });

  it('without diarization, each turn stands alone and still gets its side', () => {
    const s = buildSummary({ job, recordingLocation: 'x', transcription: { ...transcription, diarization: { status: 'unavailable' }, utterances: undefined }, roles: new Map([[-2, 'caller' as const]]) });
    assert.equal(s.diarization, 'unavailable');
    assert.deepEqual(s.turns.map((t) => [t.speaker, t.role]), [[-1, 'unknown'], [-2, 'caller'], [-3, 'unknown']]);
    assert.deepEqual(s.keywords, []);
    assert.doesNotMatch(s.summaryAr, /الكلمات المفتاحية/);
  });
});

describe('recording channels', () => {
  const tone = (n: number, amp: number) => Int16Array.from({ length: n }, (_, i) => Math.round(amp * Math.sin(i / 3)));

  it('tells each speaker\'s side from the channel that carries them, and mixes both into one track', () => {
    const rate = 1000;
    const stereo = new Int16Array(4000 * 2);
    tone(1000, 8000).forEach((v, i) => (stereo[2 * (500 + i)] = v)); // caller 0.5-1.5 s
    tone(1000, 6000).forEach((v, i) => (stereo[2 * (2500 + i) + 1] = v)); // agent 2.5-3.5 s
    const c = splitRecording(encodeWav(stereo, rate, 2));
    const roles = rolesOf(c, [
      { speaker: 3, start: 0.5, end: 1.5 },
      { speaker: 7, start: 2.5, end: 3.5 },
      { speaker: 9, start: 3.8, end: 3.9 },
    ]);
    assert.deepEqual([...roles], [[3, 'caller'], [7, 'agent'], [9, 'unknown']]);
    const mono = decodeWav(mixdown(c));
    assert.equal(mono.samples.length, 4000);
    assert.equal(mono.samples[600], c.caller[600]);
    assert.equal(mono.samples[2600], c.agent[2600]);
    assert.throws(() => splitRecording(encodeWav(new Int16Array(10), rate, 1)), /16-bit stereo/);
    assert.throws(() => splitRecording(new Uint8Array([1, 2, 3])), /not a readable WAV/);
  });
});

describe('local folder store', () => {
  it('keeps bytes under relative keys, atomically, and refuses keys that leave the folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hiwar-store-'));
    try {
      const store = new LocalFolderStore(dir);
      assert.equal(await store.get('results/a/x.json'), undefined);
      assert.equal(await store.has('results/a/x.json'), false);
      await store.put('results/a/x.json', '{"ok":true}');
      assert.equal(Buffer.from((await store.get('results/a/x.json'))!).toString(), '{"ok":true}');
      assert.equal(await store.has('results/a/x.json'), true);
      assert.equal(store.locate('results/a/x.json'), join(dir, 'results/a/x.json'));
      assert.deepEqual(await readdir(join(dir, 'results/a')), ['x.json'], 'no temporary file left');
      for (const bad of ['../x', '/etc/passwd', 'a/../../x', 'a//b', '', 'a\\b', './a']) {
        await assert.rejects(store.put(bad, 'x'), /bad store key/, bad);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('call recorder', () => {
  /** A transport whose caller frames and agent writes the test drives, with no clock of its own. */
  function fakeTransport() {
    const audio$ = new Subject<AudioFrame>();
    const written: AudioFrame[] = [];
    let interrupts = 0;
    const t: Transport = {
      call: { callId: 'r1', provider: 'test', parameters: {} },
      inputRate: 8000,
      audio$,
      events$: new Subject<TransportEvent>(),
      output: {
        sampleRate: 8000,
        write: (f) => void written.push(f),
        mark: async () => {},
        interrupt: async () => (interrupts++, 0),
        playback$: new Subject<PlaybackUpdate>(),
        position: () => 0,
        close: async () => {},
      },
      hangup: async () => {},
    };
    return { t, audio$, written, interrupts: () => interrupts };
  }
  const frame = (v: number, time: number, n = 160): AudioFrame => ({ samples: new Int16Array(n).fill(v), sampleRate: 8000, time });

  it('lays the caller left and the agent right on one timeline at 16 kHz; frames seen by two subscribers count once', async () => {
    const f = fakeTransport();
    const rec = new CallRecorder(f.t);
    assert.ok(rec.transport.hangup, 'what the transport can do stays available');
    assert.equal(rec.transport.transfer, undefined);
    const seen: number[] = [];
    rec.transport.audio$.subscribe((x) => seen.push(x.time));
    rec.transport.audio$.subscribe(() => {});
    // 1 s of caller audio: 50 frames of 20 ms, stamped with jitter and a catch-up burst.
    for (let k = 0; k < 50; k++) f.audio$.next(frame(k < 25 ? 1000 : 0, 1000 + k * 20 + (k >= 10 && k < 20 ? 150 : 0)));
    // The agent writes 0.2 s at 1.5 s, ahead of playout: it plays from 1.5 s on, end to end.
    for (let k = 0; k < 10; k++) rec.transport.output.write(frame(2000, 1500));
    assert.equal(f.written.length, 10, 'writes reach the real output');
    assert.equal(seen.length, 50);
    assert.ok(Math.abs(rec.seconds - 1) < 0.01, `${rec.seconds}`);
    const c = splitRecording((await rec.finish()).wav);
    assert.equal(c.sampleRate, 16000);
    assert.equal(c.caller.length, 16000);
    const at = (pcm: Int16Array, s: number) => pcm[Math.round(s * 16000)]!;
    assert.ok(Math.abs(at(c.caller, 0.25) - 1000) < 50, 'caller speech in its first half second');
    assert.equal(at(c.caller, 0.75), 0);
    assert.equal(at(c.agent, 0.45), 0);
    assert.ok(Math.abs(at(c.agent, 0.6) - 2000) < 50, 'agent audio from 0.5 s after the call began');
    assert.equal(at(c.agent, 0.75), 0, 'and 0.2 s long');
  });

  it("the caller's frames keep their place in the stream through a long stall and its catch-up burst, and a hole stays a pause", async () => {
    const f = fakeTransport();
    const rec = new CallRecorder(f.t);
    rec.transport.audio$.subscribe(() => {});
    // 20 s of caller stream from 0 s, silence but for speech from 12 s to 13 s (frames 600–649).
    // The sender stalls 8 s at 2 s (a starved process): frames 100–499 arrive at 10 s in one
    // burst, then the stream runs on time again. Then the line goes quiet for 3 s (on hold) and
    // comes back at 23 s with speech at once.
    for (let k = 0; k < 1000; k++) {
      const due = k * 20;
      const arrives = k >= 100 && k < 500 ? Math.max(10_000, due) : due;
      f.audio$.next(frame(k >= 600 && k < 650 ? 1000 : 0, arrives));
    }
    for (let k = 0; k < 50; k++) f.audio$.next(frame(1500, 23_000 + k * 20));
    // The agent spoke from 11 s to 11.5 s, written as it played.
    for (let k = 0; k < 25; k++) rec.transport.output.write(frame(2000, 11_000 + k * 20));
    assert.ok(Math.abs(rec.seconds - 24) < 0.01, `${rec.seconds}`);
    const c = splitRecording((await rec.finish()).wav);
    const at = (pcm: Int16Array, s: number) => pcm[Math.round(s * 16000)]!;
    assert.equal(at(c.caller, 11.9), 0, 'nothing of the line before it was said');
    assert.ok(Math.abs(at(c.caller, 12.5) - 1000) < 50, 'the line where it was said, after the agent');
    assert.equal(at(c.caller, 13.2), 0);
    assert.ok(Math.abs(at(c.agent, 11.2) - 2000) < 50);
    assert.equal(at(c.caller, 21), 0, 'the hold is silence');
    assert.ok(Math.abs(at(c.caller, 23.5) - 1500) < 50, 'the speech after the hold where it came');
  });

  it("`seconds` and `finish()` agree, and a caller frame after `seconds` was read is in both (the track laid out once is laid out again)", async () => {
    const f = fakeTransport();
    const rec = new CallRecorder(f.t);
    rec.transport.audio$.subscribe(() => {});
    assert.equal(rec.seconds, 0, 'nothing yet');
    for (let k = 0; k < 25; k++) f.audio$.next(frame(1000, k * 20));
    assert.ok(Math.abs(rec.seconds - 0.5) < 0.01, `${rec.seconds}`);
    assert.ok(Math.abs(rec.seconds - 0.5) < 0.01, 'read twice, the same');
    for (let k = 25; k < 50; k++) f.audio$.next(frame(1500, k * 20));
    assert.ok(Math.abs(rec.seconds - 1) < 0.01, `the later frames count: ${rec.seconds}`);
    const done = await rec.finish();
    assert.equal(done.seconds, 1);
    const c = splitRecording(done.wav);
    assert.ok(Math.abs(c.caller[Math.round(0.75 * 16000)]! - 1500) < 50, 'the frames after the first read are in the recording');
  });

  it('an interruption drops what the agent had queued beyond that moment', async () => {
    const f = fakeTransport();
    const rec = new CallRecorder(f.t);
    rec.transport.audio$.subscribe(() => {});
    f.audio$.next(frame(0, 0));
    for (let k = 0; k < 50; k++) rec.transport.output.write(frame(3000, 100)); // 1 s queued at 0.1 s
    f.audio$.next(frame(0, 400)); // the caller barges in at 0.4 s
    await rec.transport.output.interrupt();
    assert.equal(f.interrupts(), 1);
    rec.transport.output.write(frame(500, 600, 800)); // the next reply, at 0.6 s
    const c = splitRecording((await rec.finish()).wav);
    const at = (s: number) => c.agent[Math.round(s * 16000)]!;
    assert.ok(Math.abs(at(0.3) - 3000) < 50);
    assert.equal(at(0.5), 0, 'the cut part is not in the recording');
    assert.ok(Math.abs(at(0.65) - 500) < 50, 'the next reply where it was written');
    assert.equal(c.agent.length, Math.round(0.7 * 16000));
  });
});
