/**
 * The keys hiwar sends (`Transport.sendDtmf`, in-band tones) as a phone would hear them: the
 * agent audio that leaves hiwar over a real socket is decoded here with the ITU-T G.711 table
 * (or read as L16 bytes), cut into tones and pauses by its energy, and each tone is measured
 * with a Goertzel filter: its two frequencies must be the key's pair of ITU-T Q.23 (within
 * Q.23's ±1.8 %, far above the other six), and the tone and pause lengths are what hiwar means to
 * send (100 ms and 80 ms, longer than Q.24's 40 ms minimum). Nothing here uses hiwar's codecs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PlatformPeer, g711Table, platformFixture, fixtureServerForFile } from './fixture-server.ts';

const ROWS = [697, 770, 852, 941];
const COLS = [1209, 1336, 1477, 1633];
const KEYS = ['123A', '456B', '789C', '*0#D'];
/** Q.23: each frequency within ±1.8 % of nominal. */
const Q23_TOLERANCE = 0.018;

/** Power of `f` Hz in `x` (Goertzel's recurrence; any frequency, not only bin centres). */
function goertzel(x: ArrayLike<number>, f: number, rate: number): number {
  const w = (2 * Math.PI * f) / rate;
  const k = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < x.length; i++) {
    const s0 = x[i]! + k * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - k * s1 * s2;
}

/** Runs of sound and silence, in whole milliseconds, from the energy of each 1 ms block. */
function segments(x: number[], rate: number): { tone: boolean; start: number; ms: number }[] {
  const per = rate / 1000;
  const out: { tone: boolean; start: number; ms: number }[] = [];
  for (let at = 0; at + per <= x.length; at += per) {
    let e = 0;
    for (let i = at; i < at + per; i++) e += x[i]! * x[i]!;
    const tone = Math.sqrt(e / per) > 1000;
    const last = out.at(-1);
    if (last && last.tone === tone) last.ms++;
    else out.push({ tone, start: at, ms: 1 });
  }
  return out;
}

/** The key a tone is, from the strongest row and column frequency; checks both are the standard's. */
function keyOf(tone: number[], rate: number): string {
  const power = (fs: number[]) => fs.map((f) => goertzel(tone, f, rate));
  const rows = power(ROWS);
  const cols = power(COLS);
  const r = rows.indexOf(Math.max(...rows));
  const c = cols.indexOf(Math.max(...cols));
  const others = [...rows.filter((_, i) => i !== r), ...cols.filter((_, i) => i !== c)];
  // Both tones of the pair stand at least 20 dB above every other DTMF frequency.
  assert.ok(Math.min(rows[r]!, cols[c]!) > 100 * Math.max(...others), `tone pair ${ROWS[r]}/${COLS[c]} not clear of the others`);
  for (const nominal of [ROWS[r]!, COLS[c]!]) {
    // The frequency actually sent: the peak of a 1 Hz scan around the nominal one.
    let best = nominal;
    for (let f = Math.floor(nominal * 0.96); f <= nominal * 1.04; f++) if (goertzel(tone, f, rate) > goertzel(tone, best, rate)) best = f;
    assert.ok(Math.abs(best - nominal) / nominal <= Q23_TOLERANCE, `${nominal} Hz sent as ${best} Hz`);
  }
  return KEYS[r]![c]!;
}

/** Tones, pauses and keys heard in agent audio. */
function listen(x: number[], rate: number) {
  const segs = segments(x, rate);
  // Leading silence (before the first key) is not a pause between keys.
  while (segs[0] && !segs[0].tone) segs.shift();
  const tones = segs.filter((s) => s.tone);
  return {
    keys: tones.map((s) => keyOf(x.slice(s.start, s.start + (s.ms * rate) / 1000), rate)).join(''),
    toneMs: tones.map((s) => s.ms),
    pauseMs: segs.filter((s) => !s.tone).map((s) => s.ms),
  };
}

function assertTiming(heard: { toneMs: number[]; pauseMs: number[] }, keys: number): void {
  assert.equal(heard.toneMs.length, keys);
  // Energy edges land within a sample or two of the true ones: 1 ms of slack each way.
  for (const ms of heard.toneMs) assert.ok(ms >= 99 && ms <= 101, `tone of ${ms} ms`);
  for (const ms of heard.pauseMs.slice(0, keys - 1)) assert.ok(ms >= 79 && ms <= 81, `pause of ${ms} ms`);
}

const server = fixtureServerForFile();

test('keys sent on a Twilio stream: mu-law tones at the Q.23 pairs, 100 ms each with 80 ms between', async () => {
  const f = platformFixture('twilio');
  const peer = await PlatformPeer.websocket(`${server().wsUrl}/telephony/twilio`);
  const next = server().nextCall();
  peer.send(f.fromPlatform.connected.message);
  peer.send(f.fromPlatform.start.message);
  const call = await next;
  const digits = '123A456B';
  const sent = call.transport.sendDtmf!(digits);
  const mu = g711Table().mulaw;
  const heard: number[] = [];
  // 8 keys × 180 ms at 8 kHz; marks are echoed as Twilio does, so sendDtmf resolves once played.
  while (heard.length < 8 * 180 * 8) {
    const m = (await peer.nextJson()) as { event: string; media?: { payload: string }; mark?: { name: string } };
    if (m.event === 'media') heard.push(...[...Buffer.from(m.media!.payload, 'base64')].map((b) => mu[b]!));
    if (m.event === 'mark') peer.send({ ...f.fromPlatform.mark.message, mark: m.mark });
  }
  for (;;) {
    const m = (await Promise.race([peer.nextJson(), sent.then(() => undefined)])) as { event: string; mark?: { name: string } } | undefined;
    if (!m) break;
    if (m.event === 'mark') peer.send({ ...f.fromPlatform.mark.message, mark: m.mark });
  }
  await sent;
  const got = listen(heard, 8000);
  assert.equal(got.keys, digits);
  assertTiming(got, digits.length);
  peer.close();
});

test('keys sent on a Vonage stream: L16 16 kHz tones, the other eight keys', async () => {
  const f = platformFixture('vonage');
  const peer = await PlatformPeer.websocket(`${server().wsUrl}/telephony/vonage`);
  const next = server().nextCall();
  peer.send(f.fromPlatform.connected.message);
  const call = await next;
  const digits = '789C*0#D';
  void call.transport.sendDtmf!(digits);
  const heard: number[] = [];
  while (heard.length < 8 * 180 * 16) {
    const m = await peer.next();
    if ('binary' in m) for (let i = 0; i + 1 < m.binary.length; i += 2) heard.push(m.binary.readInt16LE(i));
  }
  const got = listen(heard, 16000);
  assert.equal(got.keys, digits);
  assertTiming(got, digits.length);
  peer.close();
});
