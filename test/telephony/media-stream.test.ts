import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReplyPlayout } from '../../src/pipeline/playout.ts';
import { CallActions, type CallActionHost } from '../../src/session/call-actions.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { VirtualClock } from '../../src/transport/clock.ts';
import { MediaStreamOutput, MediaStreamTransport } from '../../transports/telephony/media-stream.ts';
import type { TransportEvent } from '../../src/transport/types.ts';
import type { ProviderConnection, WireMessage } from '../../transports/telephony/provider.ts';
import { farEndReason } from '../../transports/telephony/far-end-reason.ts';
import { pcm } from '../../transports/telephony/pcm.ts';
import { KEY_REFUSED_HINT } from '../../src/service/errors.ts';

const FORMAT = { codec: 'mulaw', sampleRate: 8000, frameMs: 20 } as const;

function rig(withMarks: boolean) {
  const clock = new VirtualClock();
  const sent: WireMessage[] = [];
  const conn: ProviderConnection = {
    parse: () => [],
    encodeAudio: (p) => ({ binary: p }),
    clear: () => ({ text: 'clear' }),
    ...(withMarks ? { mark: (name: string) => ({ text: `mark:${name}` }) } : {}),
  };
  const played: string[] = [];
  const out = new MediaStreamOutput(FORMAT, conn, { send: (m) => sent.push(m), close: () => {} }, { clock }, (id) => played.push(id));
  const audio = () => sent.filter((m) => 'binary' in m).length;
  const marks = () => sent.flatMap((m) => ('text' in m && m.text.startsWith('mark:') ? [m.text.slice(5)] : []));
  const write = (seconds: number) => out.write({ samples: new Int16Array(Math.round(seconds * 8000)).fill(1000), sampleRate: 8000, time: 0 });
  return { clock, sent, out, audio, marks, write, played };
}

describe('media-stream output', () => {
  test('paces on the clock: the platform never holds more than the lead, and gets no gaps', async () => {
    const r = rig(false);
    r.write(2);
    assert.equal(r.audio(), 8, '160 ms lead at once, not 2 s');
    for (let i = 1; i <= 50; i++) {
      await r.clock.advance(20);
      const aheadMs = r.audio() * 20 - r.clock.now();
      assert.ok(aheadMs <= 180 && aheadMs >= 100, `at ${r.clock.now()} ms, ${aheadMs} ms ahead`);
    }
    await r.clock.advance(2000);
    assert.equal(r.audio(), 100, 'all 2 s sent, in 20 ms frames');
    assert.ok(Math.abs(r.out.position() - 2) < 0.001, 'no marks: played from the send clock');
  });

  test('sendEveryMs 40: two frames per pacing step, each step and its mark corked into one write, no gap', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    const conn: ProviderConnection = { parse: () => [], encodeAudio: () => ({ text: 'media' }), mark: (name) => ({ text: `mark:${name}` }) };
    const sink = { send: (m: WireMessage) => log.push('text' in m ? m.text.split(':')[0]! : 'bin'), close: () => {}, cork: () => log.push('('), uncork: () => log.push(')') };
    const out = new MediaStreamOutput(FORMAT, conn, sink, { clock, sendEveryMs: 40 });
    out.write({ samples: new Int16Array(16000).fill(1000), sampleRate: 8000, time: 0 });
    const frames = () => log.filter((x) => x === 'media').length;
    assert.equal(frames(), 9, 'the first step fills the 160 ms lead and one frame over it');
    assert.deepEqual(log.slice(0, 1), ['(']);
    const steps: number[] = [];
    for (let t = 0; t < 1600; t += 5) {
      const before = frames();
      await clock.advance(5);
      if (frames() > before) steps.push(frames() - before);
      const aheadMs = frames() * 20 - clock.now();
      assert.ok(aheadMs >= 145 && aheadMs <= 200, `at ${clock.now()} ms the platform holds ${aheadMs} ms`);
    }
    assert.ok(steps.length >= 30 && steps.every((n) => n === 2), `frames per step: ${steps.join(' ')}`);
    // Every message went out inside a ( … ) pair, and the pairs never nest.
    let depth = 0;
    for (const x of log) {
      if (x === '(') depth++;
      else if (x === ')') depth--;
      else assert.equal(depth, 1, `${x} sent outside a corked step`);
      assert.ok(depth === 0 || depth === 1);
    }
    assert.equal(depth, 0);
    assert.ok(log.includes('mark'));
    await clock.advance(2000);
    assert.equal(frames(), 100, 'all 2 s sent, in 20 ms frames');
  });

  test('marks: played moves only on acknowledgements; interrupt clears, ignores echoes of cleared marks, and restarts the timeline there', async () => {
    const r = rig(true);
    r.write(1);
    await r.clock.advance(400);
    const names = r.marks();
    assert.ok(names.length >= 4, `a mark about every 100 ms: ${names}`);
    assert.equal(r.out.position(), 0, 'nothing acknowledged yet');
    const done = r.out.mark('reply-end');
    r.out.acknowledge(names[1]!);
    assert.ok(Math.abs(r.out.position() - 0.2) < 0.001, 'second mark = 200 ms played');
    const at = await r.out.interrupt();
    assert.ok(Math.abs(at - 0.2) < 0.001);
    assert.ok(r.sent.some((m) => 'text' in m && m.text === 'clear'), 'the platform is told to clear');
    await done; // a pending mark resolves when its audio is dropped
    for (const n of names.slice(2)) r.out.acknowledge(n); // Twilio echoes cleared marks
    assert.ok(Math.abs(r.out.position() - 0.2) < 0.001, 'echoes of cleared marks do not count');
    assert.ok(!r.played.includes('reply-end'), 'the dropped mark was not reported played');
    r.write(0.1);
    await r.clock.advance(200);
    const last = r.marks().at(-1)!;
    r.out.acknowledge(last);
    assert.ok(Math.abs(r.out.position() - 0.3) < 0.001, 'new audio counts from where the caller stopped hearing');
    r.out.acknowledge('forged');
    assert.ok(Math.abs(r.out.position() - 0.3) < 0.001);
  });

  test('a mark resolves and is reported played when the platform acknowledges the audio before it', async () => {
    const r = rig(true);
    r.write(0.1);
    const played = r.out.mark('m1');
    await r.clock.advance(200);
    let resolved = false;
    void played.then(() => (resolved = true));
    await r.clock.advance(0);
    assert.equal(resolved, false);
    r.out.acknowledge(r.marks().at(-1)!);
    await played;
    assert.deepEqual(r.played, ['m1']);
  });

  for (const oneWayMs of [150, 250]) {
    test(`a reply reaches a platform ${2 * oneWayMs} ms away without holes: the playout's lead counts from what was sent, not from the late acknowledgements`, async () => {
      // A platform that plays what it is sent in real time and echoes each mark once the audio
      // before it has played, with the network's delay each way (a busy far end is the same).
      const clock = new VirtualClock();
      const conn: ProviderConnection = { parse: () => [], encodeAudio: (p) => ({ binary: p }), clear: () => ({ text: 'clear' }), mark: (name) => ({ text: `mark:${name}` }) };
      const buffer: ({ frame: true } | { mark: string })[] = [];
      const later = (fn: () => void) => void clock.sleep(oneWayMs).then(fn);
      const sink = { send: (m: WireMessage) => later(() => buffer.push('binary' in m ? { frame: true } : { mark: m.text.slice(5) })), close: () => {} };
      const out = new MediaStreamOutput(FORMAT, conn, sink, { clock });
      const playout = new ReplyPlayout(out, clock);
      playout.beginSegment('رد طويل');
      playout.append(new Int16Array(3 * 8000).fill(1000), 8000);
      playout.end();
      let heard = 0;
      const holes: number[] = [];
      for (let t = 20; t <= 6000; t += 20) {
        await clock.advance(20);
        let frame = false;
        while (buffer.length && !frame) {
          const head = buffer.shift()!;
          if ('mark' in head) later(() => out.acknowledge(head.mark));
          else frame = true;
        }
        if (frame) heard++;
        else if (heard > 0 && heard < 150) holes.push(t);
      }
      assert.equal(heard, 150, 'all 3 s heard');
      assert.deepEqual(holes, [], 'no 20 ms slot without agent audio inside the reply');
      assert.equal(await playout.finished, 'done', 'the reply ended on its acknowledged end mark');
    });
  }

  test('a short tail waits one frame for more audio, then goes out padded; flow control holds sending', async () => {
    const r = rig(false);
    r.write(0.03);
    assert.equal(r.audio(), 1, 'the full frame goes at once');
    await r.clock.advance(10);
    r.write(0.01);
    assert.equal(r.audio(), 2, 'the tail joined by more audio makes a full frame');
    r.write(0.005);
    await r.clock.advance(40);
    assert.equal(r.audio(), 3, 'a lone tail goes out padded after a frame');
    r.out.setPaused(true);
    r.write(0.2);
    await r.clock.advance(100);
    assert.equal(r.audio(), 3, 'nothing while the platform said XOFF');
    r.out.setPaused(false);
    assert.ok(r.audio() > 3);
  });

  test("the gateway is told a generic hang-up reason, never the operator's hint; the platform hook and the events keep the detail", async () => {
    const detail = `out of service: ${KEY_REFUSED_HINT}`;
    const sent: string[] = [];
    let closedWith: string | undefined;
    let hookGot: string | undefined;
    const conn = pcm.open({ url: new URL('ws://h/telephony/pcm?rate=16000'), headers: {} });
    const start = { type: 'start' as const, call: { callId: 'oos', parameters: {} }, input: FORMAT };
    const t = new MediaStreamTransport('pcm', start, conn, { send: (m) => 'text' in m && sent.push(m.text), close: (r) => void (closedWith = r) }, { clock: new VirtualClock() }, { hangup: async (_call, r) => void (hookGot = r) });
    await t.hangup(detail);
    assert.deepEqual(sent.map((m) => JSON.parse(m)), [{ type: 'hangup', reason: 'out of service' }]);
    assert.equal(closedWith, 'out of service');
    assert.equal(hookGot, detail, "the operator's own hook gets the whole reason");
    assert.ok(![...sent, closedWith].some((m) => /HIWAR_|API key/.test(m ?? '')));
    for (const [reason, told] of [['agent hung up: voicemail left', 'agent hung up'], ['server shutting down', 'server shutting down'], ['all lines busy', 'all lines busy'], ['transport error: socket reset by 10.0.0.7', 'call failed'], ['the caller is +966501234567', 'agent hung up'], [undefined, 'agent hung up']] as const) assert.equal(farEndReason(reason), told, String(reason));
  });

  test('keys pressed and a hang-up before the session subscribes still reach it, after the early audio', async () => {
    const conn: ProviderConnection = { parse: () => [], encodeAudio: (p) => ({ binary: p }) };
    const t = new MediaStreamTransport('pcm', { type: 'start', call: { callId: 'early', parameters: {} }, input: FORMAT }, conn, { send: () => {}, close: () => {} }, { clock: new VirtualClock() });
    t.handle({ type: 'audio', payload: new Uint8Array(160).fill(0xff) });
    t.handle({ type: 'dtmf', digit: '5' });
    t.handle({ type: 'stop', reason: 'caller hung up' });
    const events: TransportEvent[] = [];
    t.events$.subscribe((e) => events.push(e));
    let frames = 0;
    t.audio$.subscribe(() => frames++);
    assert.deepEqual(events.map((e) => e.type), ['dtmf', 'hangup']);
    assert.equal(frames, 1, 'the early frame was kept');
  });

  test("a platform with no transfer of its own and no transfer hook has none: the agent's call.transfer fails at once, in the tool", async () => {
    const conn: ProviderConnection = { parse: () => [], encodeAudio: (p) => ({ binary: p }) };
    const start = { type: 'start' as const, call: { callId: 'c1', parameters: {} }, input: FORMAT };
    const events: SessionEvent[] = [];
    const host: CallActionHost = { isEnding: () => false, end: async () => {}, emit: (e) => events.push(e), fail: () => {}, released: () => {}, stayWithCaller: () => {} };
    const bare = new MediaStreamTransport('exotel', start, conn, { send: () => {}, close: () => {} }, { clock: new VirtualClock() });
    assert.equal(bare.transfer, undefined);
    const actions = new CallActions(bare, host);
    // Before, the transfer was queued behind the "I am transferring you" reply and failed after it,
    // leaving the caller on a line that never moved (and an agent's endCallAfterTools undone).
    await assert.rejects(actions.control.transfer('+966920000000'), /this line \(exotel\) cannot transfer calls: give it a transfer hook \(.*telephony\.md/);
    assert.equal(actions.hasPending, false);
    assert.deepEqual(events.map((e) => e.type === 'call_action' && [e.action, e.ok]), [['transfer', false]]);

    const asked: string[] = [];
    const hooked = new MediaStreamTransport('exotel', start, conn, { send: () => {}, close: () => {} }, { clock: new VirtualClock() }, { transfer: async (_call, target) => void asked.push(target) });
    const withHook = new CallActions(hooked, host);
    await withHook.during(async () => {
      await withHook.control.transfer('+966920000000');
      assert.equal(withHook.hasPending, true, 'waits for the reply to be heard');
    });
    await withHook.runPending();
    assert.deepEqual(asked, ['+966920000000']);
  });

  test('a transfer hook written as docs/telephony.md shows, `transfer(call, target, { summary })`, is given its opts with a summary and without', async () => {
    const conn: ProviderConnection = { parse: () => [], encodeAudio: (p) => ({ binary: p }) };
    const start = { type: 'start' as const, call: { callId: 'c1', parameters: {} }, input: FORMAT };
    const summaries: (string | undefined)[] = [];
    for (const opts of [undefined, { summary: 'فقد بطاقته' }]) {
      // Before, a transfer without a summary called the hook with two arguments: destructuring
      // `undefined` threw, and the hook's own type (`opts?`) refused this signature.
      const t = new MediaStreamTransport('freeswitch', start, conn, { send: () => {}, close: () => {} }, { clock: new VirtualClock() }, {
        transfer: async (_call, _target, { summary }) => void summaries.push(summary),
      });
      await t.transfer!('+966920000000', opts);
    }
    assert.deepEqual(summaries, [undefined, 'فقد بطاقته']);
  });
});
