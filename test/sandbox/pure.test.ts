import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alignNormalized, alignText } from '../../src/sandbox/alignment.ts';
import { Endpointer } from '../../src/audio/endpointer.ts';
import { normalizeForMatch, tokenize } from '../../src/sandbox/engines/tokenize.ts';
import { KeyStore, parseKeysFile } from '../../src/sandbox/keys.ts';
import { keywordsOf, sentimentOf } from '../../src/sandbox/text-analysis.ts';
import { listenParams } from '../../src/sandbox/ws/listen.ts';
import { speakersByPitch, type FileTurn } from '../../src/sandbox/transcriber.ts';

/** Feeds probabilities as 32 ms windows on virtual time. */
function run(ep: Endpointer, probs: number[]) {
  const events: string[] = [];
  probs.forEach((p, i) => {
    for (const e of ep.push(p, i * 0.032, (i + 1) * 0.032)) events.push(`${e.type}@${(e.type === 'end' ? e.at : e.at).toFixed(3)}`);
  });
  return events;
}

test('endpointer: start after the minimum speech, end after the endpointing silence', () => {
  const ep = new Endpointer({ endpointingMs: 200, minSpeechMs: 90 });
  const probs = [0, 0, 0.9, 0.9, 0.9, 0.9, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2];
  assert.deepEqual(run(ep, probs), ['start@0.064', 'end@0.192']);
});

test('endpointer: a click shorter than the minimum is not speech; a short pause does not end it', () => {
  assert.deepEqual(run(new Endpointer({ minSpeechMs: 90 }), [0.9, 0.1, 0.1, 0.9, 0.1]), []);
  const ep = new Endpointer({ endpointingMs: 300 });
  const events = run(ep, [0.9, 0.9, 0.9, 0.1, 0.1, 0.1, 0.9, 0.9, ...Array(12).fill(0.1)]);
  assert.deepEqual(events, ['start@0.000', 'end@0.256']);
});

test('endpointer: hysteresis keeps speech through dips above the lower threshold; flush ends speech', () => {
  const ep = new Endpointer({ endpointingMs: 100 });
  const events = run(ep, [0.9, 0.9, 0.9, 0.4, 0.4, 0.4, 0.4, 0.4]);
  assert.deepEqual(events, ['start@0.000']);
  assert.equal(ep.flush()?.type, 'end');
  assert.equal(ep.flush(), undefined);
});

test('tokenize keeps character ranges and turns punctuation and break tags into pauses', () => {
  const text = 'مرحبا، <break time="1.5s"/>كيف؟';
  const pieces = tokenize(text);
  assert.deepEqual(pieces.map((p) => p.kind), ['word', 'pause', 'space', 'pause', 'word', 'pause']);
  const br = pieces[3]!;
  assert.ok(br.kind === 'pause' && br.seconds === 1.5);
  assert.equal(pieces.map((p) => text.slice(p.start, p.end)).join(''), text);
  const ms = tokenize('أ <break time="500ms"/> ب')[2]!;
  assert.ok(ms.kind === 'pause' && ms.seconds === 0.5);
  assert.ok(tokenize('<break time="99s"/>')[0]!.kind === 'pause');
});

test('normalization for matching removes diacritics and unifies letters', () => {
  assert.equal(normalizeForMatch('مَرْحَبًا بِكُم، أهلاً!'), 'مرحبا بكم اهلا');
  assert.equal(normalizeForMatch('مدرسةٌ على'), 'مدرسه علي');
});

test('alignment characters concatenate to the submitted text, times never go backwards', () => {
  const text = 'قل <break time="500ms"/> نعم.';
  const spans = tokenize(text).map((p, i) => ({ start: i * 0.1, end: i * 0.1 + 0.1, charStart: p.start, charEnd: p.end }));
  const a = alignText(text, spans);
  assert.equal(a.characters.join(''), text);
  assert.equal(a.characters.length, a.character_start_times_seconds.length);
  for (let i = 1; i < a.characters.length; i++) assert.ok(a.character_start_times_seconds[i]! >= a.character_start_times_seconds[i - 1]!);
  const n = alignNormalized([{ word: 'قل', start: 0, end: 0.2, charStart: 0, charEnd: 2 }, { word: 'نعم', start: 0.7, end: 1, charStart: 25, charEnd: 28 }]);
  assert.equal(n.characters.join(''), 'قل نعم');
});

test('keys: region, allow list, concurrency and credits', () => {
  const store = new KeyStore([
    { key: 'global-key-1', region: 'global', credits: 10, allow: ['/listen', '/text-to-speech'], concurrency: 1 },
    { key: 'uae-key-0001', region: 'uae' },
  ]);
  const g = store.lookup('global-key-1', 'global')!;
  assert.equal(store.lookup('global-key-1', 'uae'), undefined);
  assert.equal(store.lookup('uae-key-0001', 'global'), undefined);
  assert.ok(g.may('/listen') && g.may('/text-to-speech/x') && g.may('/websocket/text-to-speech'));
  assert.equal(g.may('/voices/clone'), false);
  const release = g.acquire()!;
  assert.equal(g.acquire(), undefined);
  release();
  release();
  assert.ok(g.acquire());
  assert.equal(g.spend(4), true);
  assert.equal(g.spend(7), false);
  assert.equal(g.credits, 0);
});

test('keys file: clear errors for bad JSON and bad entries', () => {
  assert.throws(() => parseKeysFile('{'), /not valid JSON/);
  assert.throws(() => parseKeysFile('[{"key":"k"}]'), /entry 0\.key/);
  assert.throws(() => parseKeysFile('[{"key":"long-enough","region":"mars"}]'), /entry 0\.region/);
  assert.equal(parseKeysFile('[{"key":"long-enough"}]')[0]!.key, 'long-enough');
  assert.throws(() => parseKeysFile('{"key":"long-enough"}'), /expected an array/);
  assert.throws(() => parseKeysFile('[{"key":"long-enough"}, 7]'), /entry 1: expected an object/);
  assert.throws(() => parseKeysFile('[{"key":"long-enough","credits":-1}]'), /entry 0\.credits/);
  assert.throws(() => parseKeysFile('[{"key":"long-enough","concurrency":1.5}]'), /entry 0\.concurrency/);
  assert.throws(() => parseKeysFile('[{"key":"long-enough","allow":"/listen"}]'), /entry 0\.allow/);
  // The defaults a key without them gets, and nothing the file adds beyond the known fields.
  assert.deepEqual(parseKeysFile('[{"key":"long-enough","note":"x"}]'), [{ key: 'long-enough', region: 'global', credits: 1_000_000, concurrency: 4 }]);
  assert.throws(() => new KeyStore([{ key: 'short' }]), /sandbox key 0\.key: expected a string of at least 8 characters/);
});

test('listen parameters: the live service rules', () => {
  const q = (s: string) => listenParams(new URLSearchParams(s));
  assert.equal(q('sample_rate=44100').ok, false);
  assert.equal(q('language=en').ok, false);
  assert.equal(q('model=asr-en-ar&language=xx').ok, false);
  assert.equal(q('endpointing=50').ok, false);
  const ok = q('model=asr-en-ar&hotwords=a,b&timestamps=false&sample_rate=8000');
  assert.ok(ok.ok && ok.params.droppedHotwords.length === 2 && ok.params.timestamps === false && ok.params.language === 'auto');
  const asr = q('hotwords=a,b');
  assert.ok(asr.ok && asr.params.droppedHotwords.length === 0);
  // The vendor's names follow the same rules; Metadata reports the build served.
  assert.equal(q('model=munsit&language=en').ok, false);
  const vendor = q('model=munsit-en-ar&language=auto&hotwords=a');
  assert.ok(vendor.ok && vendor.params.model === 'munsit-en-ar-v2' && vendor.params.droppedHotwords.length === 1);
  const unknown = q('model=munsit-v9&language=ar');
  assert.ok(unknown.ok && unknown.params.model === 'munsit-v2', 'an unknown model is served as the default, silently');
});

test('text analysis: lexicon sentiment and keywords without stop words', () => {
  assert.equal(sentimentOf('شكرا جزيلا الخدمة ممتازة').label, 'positive');
  assert.equal(sentimentOf('للأسف بطاقتي ضاعت وهذه مشكلة').label, 'negative');
  assert.equal(sentimentOf('أريد معرفة الرصيد').label, 'neutral');
  const k = keywordsOf('البطاقة البطاقة في الفرع من الفرع البطاقة');
  assert.equal(k[0]!.keyword, 'البطاقه');
  assert.ok(!k.some((x) => x.keyword === 'في'));
});

test('diarization by pitch: a blip with no pitch takes the nearest voiced turn\'s speaker; no pitch anywhere is unavailable', () => {
  const turn = (start: number, end: number, f0: number | undefined): FileTurn => ({ start, end, f0, text: '', words: [], recognized: false });
  // A call's recording on a starved machine: the greeting's first syllable alone, a second
  // before the rest of it (the playout ran dry), too short to measure a pitch.
  const turns = [turn(3.01, 3.1, undefined), turn(4.13, 7.55, 211), turn(11.39, 13.02, 81), turn(13.5, 13.6, undefined), turn(18.56, 23.3, 198)];
  assert.deepEqual(speakersByPitch(turns)?.speakers, [0, 0, 1, 1, 0]);
  assert.equal(speakersByPitch([turn(1, 1.1, undefined)]), undefined);
  assert.equal(speakersByPitch([]), undefined);
});
