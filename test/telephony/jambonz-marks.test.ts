/**
 * jambonz's mod_audio_fork queues a mark behind the audio in its playout buffer when the mark is
 * read, not behind audio still waiting in its pre-buffer for a batch to complete (fixture
 * `playout`, `mark`). When the agent's audio runs dry inside a reply (an underrun: the voice is
 * late), hiwar's mark went out with up to 80 ms of the reply held there, and came back "played"
 * before that audio was heard: `played` (what a barge-in counts as heard, what a reply's end
 * waits for) ran ahead of the caller's ear. A model of the module's buffers and mark queue on
 * virtual time checks that `played` never runs ahead of what the caller heard, and catches up
 * once the held audio has played.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VirtualClock } from '../../src/transport/clock.ts';
import { jambonz } from '../../transports/telephony/jambonz.ts';
import { MediaStreamOutput } from '../../transports/telephony/media-output.ts';
import type { WireMessage } from '../../transports/telephony/provider.ts';
import { platformFixture } from './fixture-files.ts';
import { startOf } from './wire.ts';

const fixture = platformFixture('jambonz');
const { first, then } = fixture.playout.preBufferSamples as { first: number; then: number };
const RATE = 8000;
const FRAME = 160;

/** The module: pre-buffer, playout buffer, marks queued at the playout buffer's end, a 20 ms channel frame. */
class Module {
  private preBuffer = 0;
  private threshold = first;
  /** Samples ever moved to the playout buffer, and ever played from it. */
  private written = 0;
  heard = 0;
  private marks: { name: string; at: number }[] = [];
  constructor(private readonly ack: (name: string) => void) {}

  receive(m: WireMessage): void {
    if ('text' in m) {
      const msg = JSON.parse(m.text) as { type: string; data?: { name: string } };
      if (msg.type === 'mark') this.marks.push({ name: msg.data!.name, at: this.written });
      // killAudio empties the playout buffer (its marks come back "cleared": nothing waits on them here).
      if (msg.type === 'killAudio') {
        this.written = this.heard;
        this.marks = [];
      }
      return;
    }
    this.preBuffer += m.binary.byteLength / 2;
    if (this.preBuffer < this.threshold) return;
    this.threshold = then;
    this.written += this.preBuffer;
    this.preBuffer = 0;
  }

  /** One channel frame: plays what the buffer holds, then reports the marks it reached. */
  frame(): void {
    this.heard += Math.min(FRAME, this.written - this.heard);
    const reached = this.marks.filter((k) => k.at <= this.heard);
    this.marks = this.marks.filter((k) => k.at > this.heard);
    for (const k of reached) this.ack(k.name);
  }
}

/** A jambonz call's output on virtual time, sending to the module, whose echoes it reads. */
function jambonzCall() {
  const clock = new VirtualClock();
  const conn = jambonz.open({ url: new URL('ws://h/telephony/jambonz'), headers: {} });
  const start = startOf(conn.parse({ text: JSON.stringify(fixture.fromPlatform.callAttributes.message) }));
  let out!: MediaStreamOutput;
  const module = new Module((name) => out.acknowledge(name));
  out = new MediaStreamOutput(start.output!, conn, { send: (m) => module.receive(m), close: () => {} }, { clock });
  return { clock, out, module };
}

const audio = (ms: number) => ({ samples: new Int16Array((RATE * ms) / 1000).fill(1000), sampleRate: RATE, time: 0 });

test('jambonz: an underrun inside a reply leaves its mark no earlier than what the caller heard; played catches up once the held audio plays', async () => {
  const { clock, out, module } = jambonzCall();
  let ahead = 0;
  const run = async (ms: number) => {
    for (let t = 0; t < ms; t += 20) {
      await clock.advance(20);
      module.frame();
      await clock.advance(0);
      ahead = Math.max(ahead, out.position() * RATE - module.heard);
    }
  };
  // 300 ms: a first batch (160 ms), a second (80 ms), and 60 ms short of the third, held.
  out.write(audio(300));
  await run(600);
  assert.equal(module.heard, 240 * 8, 'the module played the two batches; the last 60 ms wait in its pre-buffer');
  assert.equal(ahead, 0, `played ran ${ahead / 8} ms ahead of what the caller heard`);
  assert.equal(out.position() * RATE, module.heard, 'what was heard is counted');
  // The voice catches up: the rest of the reply, its end; the held 60 ms play first.
  out.write(audio(200));
  let endedAt: number | undefined;
  void out.mark('reply-end').then(() => (endedAt = clock.now()));
  let allHeardAt: number | undefined;
  for (let t = 0; t < 800; t += 20) {
    await run(20);
    if (module.heard >= 500 * 8) allHeardAt ??= clock.now();
  }
  assert.ok(allHeardAt !== undefined, 'the whole reply was heard');
  assert.equal(ahead, 0, `played ran ${ahead / 8} ms ahead of what the caller heard`);
  // The module plays a channel frame's 20 ms at once at its tick: the end is heard by the tick
  // that plays its last frame, which the report may share, never precede.
  assert.ok(endedAt !== undefined, "the reply's end was reported");
  assert.ok(endedAt >= allHeardAt, `the reply's end was reported at ${endedAt} ms, before its last audio was heard (${allHeardAt} ms)`);
  assert.ok(endedAt - allHeardAt <= 40, `and at most two channel frames after (${endedAt - allHeardAt} ms)`);
  await out.close();
});

test('jambonz: a barge-in during an underrun counts as heard only what left the pre-buffer (the held part is flushed into the cleared buffer, never heard)', async () => {
  const { clock, out, module } = jambonzCall();
  out.write(audio(300));
  for (let t = 0; t < 600; t += 20) {
    await clock.advance(20);
    module.frame();
  }
  const at = await out.interrupt();
  assert.equal(at * 1000, 240, 'the caller heard 240 ms of it: the last 60 ms were held, then cleared');
  assert.equal(module.heard, 240 * 8, 'the module played 240 ms: the held 60 ms went into the buffer the killAudio emptied');
  // The next reply's timeline starts there: played never runs ahead of the module, and counts the
  // whole of it (240 + 200 ms, and the silence completing its batch) once heard.
  out.write(audio(200));
  void out.mark('next');
  for (let t = 0; t < 600; t += 20) {
    await clock.advance(20);
    module.frame();
    await clock.advance(0);
    assert.ok(out.position() * RATE <= module.heard, `played ${out.position() * 1000} ms, heard ${module.heard / 8} ms`);
  }
  assert.ok(out.position() * 1000 >= 440, `the next reply is counted heard: ${out.position() * 1000} ms`);
  await out.close();
});
