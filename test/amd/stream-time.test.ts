// Answering-machine detection times the caller's audio by its place in the stream, not by when
// it arrived: the same audio delivered paced, as one burst, starting late, with the machine stalled
// in the middle (the detection's timer waking before the frames that queued meanwhile), or in
// uneven clumps gives the same class at the same stream time (from the first frame). On a virtual clock; each frame is stamped with
// its arrival time, as a transport on a loaded machine would stamp it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AmdDecision } from '../../src/amd/index.ts';
import type { AudioFrame } from '../../src/audio/frame.ts';
import type { Agent } from '../../src/session/agent.ts';
import { AnswerDetection } from '../../src/session/answer-detection.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { VirtualClock } from '../../src/transport/clock.ts';
import type { CallControl } from '../../src/transport/types.ts';
import { compose, frames, noiseSource, type Piece } from '../helpers/amd-audio.ts';

const T0 = 100_000;
const GREETING = 'مرحبًا، معك سارة من بنك الواحة.';
const VOICEMAIL = 'نرجو أن تتصل بنا.';
const agent: Agent = { name: 'reminder', instructions: '', voice: { voice_id: 'v' }, outOfServiceLine: '', greeting: GREETING, answeringMachine: { enabled: true, onMachine: 'voicemail' }, voicemail: VOICEMAIL };

/** How frames reach the detection: `push` stamps each with the clock time it arrives. */
type Delivery = (fs: AudioFrame[], clock: VirtualClock, push: (f: AudioFrame) => void) => Promise<void>;

const DELIVERIES: Record<string, Delivery> = {
  paced: async (fs, clock, push) => {
    for (const f of fs) {
      push(f);
      await clock.advance(20);
    }
  },
  // All of it at once, a quarter second after the answer.
  burst: async (fs, clock, push) => {
    await clock.advance(250);
    for (const f of fs) push(f);
  },
  // The stream starts sending 3.5 s after the answer (a far end on a loaded machine), then paced.
  late: async (fs, clock, push) => {
    await clock.advance(3500);
    for (const f of fs) {
      push(f);
      await clock.advance(20);
    }
  },
  // Paced for 0.8 s, then nothing for 3.4 s (the detection's first timer comes due in the gap
  // and finds the line quiet), then the rest at once, then paced again.
  stall: async (fs, clock, push) => {
    for (const [i, f] of fs.entries()) {
      if (i === 40) await clock.advance(3400);
      push(f);
      if (i < 40 || i >= 40 + 210) await clock.advance(20);
    }
  },
  // Uneven clumps of 1 to 12 frames at uneven gaps, on average behind real time.
  clumps: async (fs, clock, push) => {
    const rnd = noiseSource(7);
    for (let i = 0; i < fs.length; ) {
      const n = 1 + Math.floor((rnd() + 0.5) * 12);
      for (const f of fs.slice(i, i + n)) push(f);
      i += n;
      await clock.advance(Math.round(n * 20 * (1.2 + rnd())));
    }
  },
};

interface Outcome {
  d: AmdDecision;
  action: string;
  said: string[];
  hangups: (string | undefined)[];
}

async function detect(pieces: Piece[], deliver: Delivery): Promise<Outcome> {
  const clock = new VirtualClock(T0);
  const events: SessionEvent[] = [];
  const said: string[] = [];
  const hangups: (string | undefined)[] = [];
  const control = { hangup: async (r?: string) => void hangups.push(r) } as CallControl;
  const amd = new AnswerDetection(agent, { clock, control, emit: (e) => events.push(e), say: (t) => said.push(t), ending: () => false, notice: () => {} });
  amd.start();
  const ran = amd.run();
  // The frames' own times are wrong on purpose (1970): the detection must not read them.
  await deliver(frames(compose(pieces), 0), clock, (f) => amd.push({ ...f, time: clock.now() }));
  // The line goes quiet after the audio: any decision still due comes from the timer.
  for (let i = 0; i < 60 && !events.some((e) => e.type === 'amd'); i++) await clock.advance(500);
  await ran;
  amd.close();
  const e = events.find((x): x is Extract<SessionEvent, { type: 'amd' }> => x.type === 'amd');
  assert.ok(e, 'a decision');
  return { d: e.decision, action: e.action, said, hangups };
}

const LINES: Record<string, { pieces: Piece[]; cls: AmdDecision['class'] }> = {
  'a person: "ألو", then waiting': { pieces: [{ silence: 500 }, { speech: 600 }, { silence: 4000 }], cls: 'human' },
  'a person: "ألو… ألو؟"': { pieces: [{ silence: 300 }, { speech: 450 }, { silence: 400 }, { speech: 500, f0: 150 }, { silence: 4000 }], cls: 'human' },
  'a voicemail greeting and its beep': { pieces: [{ silence: 400 }, { speech: 4000 }, { silence: 600 }, { tone: 1000, ms: 400 }, { silence: 3000 }], cls: 'machine-voicemail' },
  'a voicemail greeting with no beep': { pieces: [{ silence: 400 }, { speech: 3500 }, { silence: 5000 }], cls: 'machine-voicemail' },
  "a carrier's special information tones": { pieces: [{ silence: 300 }, { tone: 914, ms: 330 }, { tone: 1371, ms: 330 }, { tone: 1777, ms: 330 }, { speech: 3000 }], cls: 'machine-unavailable' },
};

for (const [name, { pieces, cls }] of Object.entries(LINES)) {
  test(`${name}: ${cls} at the same stream time however the frames arrive`, async () => {
    const paced = await detect(pieces, DELIVERIES.paced!);
    assert.equal(paced.d.class, cls, paced.d.reason);
    if (cls === 'human') {
      assert.ok(paced.d.decisionMs <= 2500, `a person decided in ${paced.d.decisionMs} ms of audio`);
      assert.deepEqual(paced.said, [GREETING]);
    }
    for (const [how, deliver] of Object.entries(DELIVERIES)) {
      if (how === 'paced') continue;
      const o = await detect(pieces, deliver);
      assert.equal(o.d.class, cls, `${how}: ${o.d.reason}`);
      assert.equal(o.d.decisionMs, paced.d.decisionMs, `${how}: decided at ${o.d.decisionMs} ms of audio, paced at ${paced.d.decisionMs}`);
      // Stream time starts at the first frame (a burst's first frame came 250 ms after the answer).
      const origin = (d: AmdDecision) => d.at - d.decisionMs;
      assert.equal(o.d.beepEndAt === undefined ? undefined : o.d.beepEndAt - origin(o.d), paced.d.beepEndAt === undefined ? undefined : paced.d.beepEndAt - origin(paced.d), how);
      assert.equal(o.d.signals.firstUtteranceMs, paced.d.signals.firstUtteranceMs, how);
      assert.equal(o.action, paced.action, how);
      assert.deepEqual(o.said, paced.said, how);
      assert.deepEqual(o.hangups, paced.hangups, how);
    }
  });
}

test('a line that stops sending still gets a decision: its silence counts from the last frame', async () => {
  // "ألو", then no frames at all: the timer finds the line quiet (twice) and the silence closes the word.
  const alo = await detect([{ silence: 500 }, { speech: 600 }], DELIVERIES.paced!);
  assert.equal(alo.d.class, 'human', alo.d.reason);
  assert.ok(alo.d.decisionMs > 1100 + 700, `decided at ${alo.d.decisionMs} ms`);
  assert.deepEqual(alo.said, [GREETING]);
  // Nothing ever sent: no speech, uncertain once the initial silence is over (and confirmed).
  const none = await detect([], DELIVERIES.paced!);
  assert.equal(none.d.class, 'uncertain', none.d.reason);
  assert.ok(none.d.decisionMs >= 4000 && none.d.decisionMs <= 5000, String(none.d.decisionMs));
});
