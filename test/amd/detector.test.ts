// The answering-machine detector on virtual time: generated phone audio (speech-like bursts,
// tones, silence, hiss) and one real recording, fed as 20 ms frames with their clock times.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AmdDetector, type AmdDecision, type AmdOptions } from '../../src/amd/index.ts';
import { readAudioFile } from '../../src/audio/decode.ts';
import { mulaw } from '../../src/audio/g711.ts';
import { compose, frames, type Piece } from '../helpers/amd-audio.ts';

const T0 = 5000;

function run(pieces: Piece[] | Int16Array, opts: AmdOptions = {}, noise?: number, rate = 8000): { d: AmdDecision | undefined; det: AmdDetector } {
  const det = new AmdDetector(opts, T0);
  const pcm = pieces instanceof Int16Array ? pieces : compose(pieces, noise);
  for (const f of frames(pcm, T0, rate)) if (det.push(f)) break;
  return { d: det.decision, det };
}

test('a short "ألو" then waiting is a person, decided within humanSilenceMs of its end', () => {
  const { d } = run([{ silence: 500 }, { speech: 500 }, { silence: 4000 }]);
  assert.equal(d?.class, 'human', d?.reason);
  assert.equal(d.signals.pattern, 'short-then-silence');
  assert.ok(Math.abs(d.signals.firstSpeechMs! - 500) <= 40, `speech heard from ${d.signals.firstSpeechMs} ms`);
  // 500 ms before, 500 ms of speech, 700 ms of silence: decided on the block that completes it.
  assert.ok(d.decisionMs >= 1700 && d.decisionMs <= 1760, `decided at ${d.decisionMs} ms`);
  assert.equal(d.at, T0 + d.decisionMs);
});

test('"ألو… ألو؟" with a short pause between is still one short utterance: a person', () => {
  const { d } = run([{ silence: 300 }, { speech: 450 }, { silence: 400 }, { speech: 500, f0: 150 }, { silence: 3000 }]);
  assert.equal(d?.class, 'human', d?.reason);
  assert.ok(d.signals.firstUtteranceMs! >= 1300 && d.signals.firstUtteranceMs! <= 1400, String(d.signals.firstUtteranceMs));
});

test('loud noise bursts after a person\'s word are not speech: they do not stretch it into a greeting', () => {
  const bursts: Piece[] = Array.from({ length: 6 }, () => [{ burst: 300, amp: 3000 }, { silence: 250 }] as Piece[]).flat();
  const { d } = run([{ silence: 400 }, { speech: 500 }, { silence: 100 }, ...bursts, { silence: 2000 }]);
  assert.equal(d?.class, 'human', d?.reason);
  assert.ok(d.signals.firstUtteranceMs! < 700, `first utterance ${d.signals.firstUtteranceMs} ms`);
  // By level alone (no voicing asked) the bursts join the word into a "greeting".
  const levelOnly = run([{ silence: 400 }, { speech: 500 }, { silence: 100 }, ...bursts, { silence: 2000 }], { minVoicing: 0 }).d;
  assert.equal(levelOnly?.signals.pattern, 'long-greeting', levelOnly?.reason);
});

test('a long greeting then a beep is voicemail, with the beep and where it ended', () => {
  const { d } = run([{ silence: 400 }, { speech: 4000 }, { silence: 600 }, { tone: 1000, ms: 400 }, { silence: 3000 }]);
  assert.equal(d?.class, 'machine-voicemail', d?.reason);
  assert.ok(d.signals.beep, 'the beep is reported');
  assert.ok(Math.abs(d.signals.beep.frequency - 1000) <= 20, `beep at ${d.signals.beep.frequency} Hz`);
  const beepEnd = T0 + 400 + 4000 + 600 + 400;
  assert.ok(Math.abs(d.beepEndAt! - beepEnd) <= 20, `beep ended at ${d.beepEndAt}, not ${beepEnd}`);
  assert.equal(d.messageAt, d.beepEndAt);
  assert.equal(d.signals.pattern, 'long-greeting');
  // Known to be a machine once the greeting passed greetingMs, long before its beep.
  assert.ok(Math.abs(d.signals.machineMs! - 2400) <= 40, `machine from ${d.signals.machineMs} ms`);
});

test('a long greeting with no beep is voicemail once beepWaitMs of silence has passed', () => {
  const { d } = run([{ silence: 400 }, { speech: 3500 }, { silence: 5000 }]);
  assert.equal(d?.class, 'machine-voicemail', d?.reason);
  assert.equal(d.beepEndAt, undefined);
  assert.equal(d.signals.beep, undefined);
  assert.ok(Math.abs(d.decisionMs - (3900 + 2000)) <= 40, `decided at ${d.decisionMs}`);
  assert.equal(d.messageAt, d.at);
});

test('a greeting that runs past the time limit is voicemail with no message point', () => {
  const { d } = run([{ silence: 200 }, { speech: 15_000 }], { maxGreetingMs: 12_000 });
  assert.equal(d?.class, 'machine-voicemail', d?.reason);
  assert.equal(d.messageAt, undefined);
  assert.ok(Math.abs(d.decisionMs - 12_000) <= 20, String(d.decisionMs));
});

test('silence is uncertain after initialSilenceMs; so is a line that stops sending (tick at the deadline)', () => {
  const { d } = run([{ silence: 6000 }]);
  assert.equal(d?.class, 'uncertain');
  assert.equal(d.signals.pattern, 'silence');
  assert.ok(Math.abs(d.decisionMs - 4000) <= 20, String(d.decisionMs));

  const det = new AmdDetector({}, T0);
  assert.equal(det.deadline, T0 + 4000, 'nothing heard: due when the initial silence is over');
  assert.equal(det.tick(T0 + 3900), undefined);
  assert.equal(det.tick(det.deadline!)?.class, 'uncertain');
  assert.equal(det.deadline, undefined, 'decided: no deadline left');
});

test('speech-like audio is never taken for a beep, even long and loud over hiss', () => {
  for (const f0 of [100, 130, 180, 240]) {
    const { det } = run([{ silence: 300 }, { speech: 6000, f0, amp: 8000 }], {}, 300);
    assert.equal(det.decision, undefined, `f0 ${f0}: ${det.decision?.reason}`);
  }
});

test('a beep over loud line noise is still heard', () => {
  const { d } = run([{ silence: 300 }, { speech: 3000 }, { silence: 500 }, { tone: 850, ms: 250, amp: 3000 }, { silence: 2000 }], {}, 700);
  assert.equal(d?.class, 'machine-voicemail', d?.reason);
  assert.ok(d.signals.beep && Math.abs(d.signals.beep.frequency - 850) <= 20);
});

test('a tone shorter than beepMinMs is not a beep', () => {
  const { d } = run([{ silence: 300 }, { speech: 3000 }, { silence: 500 }, { tone: 1000, ms: 100 }, { silence: 4000 }]);
  assert.equal(d?.class, 'machine-voicemail');
  assert.equal(d.signals.beep, undefined, 'decided without a beep');
});

test('special information tones (rising, back to back) are a carrier announcement', () => {
  const { d } = run([{ silence: 300 }, { tone: 914, ms: 330 }, { tone: 1371, ms: 330 }, { tone: 1777, ms: 330 }, { speech: 4000 }]);
  assert.equal(d?.class, 'machine-unavailable', d?.reason);
  assert.ok((d.signals.sit?.length ?? 0) >= 2, JSON.stringify(d.signals.sit));
  assert.ok(d.decisionMs < 1400, `decided at ${d.decisionMs}, before the announcement's words`);
});

test('a carrier phrase in the transcript decides machine-unavailable, whatever its spelling', () => {
  for (const text of ['الرقمُ المطلوبُ مُغلَقٌ أو خارجَ نطاقِ التغطية', 'عذرا الهاتف المطلوب لا يمكن الوصول اليه حاليا', 'The subscriber you have dialled is not available. Subscriber unavailable.']) {
    const det = new AmdDetector({}, T0);
    for (const f of frames(compose([{ silence: 300 }, { speech: 1500 }]), T0)) det.push(f);
    const d = det.transcript(text, true);
    assert.equal(d?.class, 'machine-unavailable', text);
    assert.equal(d.at, T0 + 1800, 'decided at the stream time of the audio heard (1.8 s), whenever the transcript came');
    assert.equal(d.signals.phrase?.class, 'machine-unavailable');
  }
});

test('a voicemail phrase keeps a short greeting from passing for a person and waits for the beep', () => {
  const det = new AmdDetector({}, T0);
  const fs = frames(compose([{ silence: 300 }, { speech: 1200 }, { silence: 900 }, { tone: 1400, ms: 300 }, { silence: 2000 }]), T0);
  let d: AmdDecision | undefined;
  for (const [i, f] of fs.entries()) {
    if (i === 80) assert.equal(det.transcript('الرجاء ترك رسالة بعد الصافرة', false), undefined, 'a phrase alone does not end the wait for the beep');
    d ??= det.push(f);
  }
  assert.equal(d?.class, 'machine-voicemail', d?.reason);
  assert.ok(d.beepEndAt && Math.abs(d.beepEndAt - (T0 + 2700)) <= 20, String(d.beepEndAt));
});

test('ordinary words in a transcript match no phrase', () => {
  const det = new AmdDetector({}, T0);
  for (const text of ['ألو نعم', 'مين معي', 'hello who is this', 'رسالة', 'الرقم']) assert.equal(det.transcript(text, true), undefined, text);
  assert.equal(det.decision, undefined);
});

test('16 kHz frames give the same decision; other rates and bad options are refused clearly', () => {
  const pcm16 = new Int16Array(compose([{ silence: 500 }, { speech: 500 }, { silence: 3000 }]).length * 2);
  const at8 = compose([{ silence: 500 }, { speech: 500 }, { silence: 3000 }]);
  for (let i = 0; i < at8.length; i++) pcm16[2 * i] = pcm16[2 * i + 1] = at8[i]!;
  assert.equal(run(pcm16, {}, undefined, 16000).d?.class, 'human');
  assert.throws(() => new AmdDetector().push({ samples: new Int16Array(220), sampleRate: 11025, time: 0 }), /11025/);
  assert.throws(() => new AmdDetector({ beepBand: [2000, 400] }), /beepBand/);
  assert.throws(() => new AmdDetector({ humanSilenceMs: -1 }), /humanSilenceMs/);
  assert.throws(() => new AmdDetector({ phraseCoverage: 0 }), /phraseCoverage/);
});

test('a real recording through G.711: one word, then silence, is a person', async () => {
  // 1 s of silence, «واحد» (0.42 s), 2 s of silence… (test/audio/fixtures/README.md)
  const { samples } = await readAudioFile(new URL('../audio/fixtures/speech_sil_16k.opus', import.meta.url).pathname, 8000);
  const line = mulaw.decode(mulaw.encode(samples));
  const { d } = run(line);
  assert.equal(d?.class, 'human', d?.reason);
  assert.ok(Math.abs(d.signals.firstSpeechMs! - 1000) <= 100, `speech from ${d.signals.firstSpeechMs} ms`);
  assert.ok(d.decisionMs <= 2300, `decided at ${d.decisionMs} ms`);
});
