import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { lastValueFrom } from '../helpers/rx.ts';
import type { TransportEvent } from '../../src/transport/types.ts';
import { AGENT_CODEC, AgentParticipant } from '../../transports/webrtc/agent-participant.ts';
import { requireMediasoup, type ms } from '../../transports/webrtc/mediasoup.ts';
import { SenderPool } from '../../transports/webrtc/sender-thread.ts';
import { Deadline } from '../helpers/deadline.ts';

/**
 * The agent's packets go sender thread → UDP → mediasoup → UDP → a receiver in a thread of its
 * own: nothing on the way runs on the test's main thread, which these tests block on purpose.
 */
let worker: ms.Worker;
let router: ms.Router;
let receiver: Receiver;

interface Arrival {
  ssrc: number;
  seq: number;
  timestamp: number;
  marker: boolean;
  /** Wall-clock ms (performance.timeOrigin + now) in the receiver thread. */
  at: number;
}

/**
 * A UDP socket in a worker thread that notes every RTP packet's arrival as it comes, and counts
 * them in memory shared with the main thread, which can read the count while it is blocked.
 */
class Receiver {
  private readonly count: Int32Array;

  private constructor(
    private readonly thread: Worker,
    readonly port: number,
    shared: SharedArrayBuffer,
  ) {
    this.count = new Int32Array(shared);
  }

  static async start(): Promise<Receiver> {
    const shared = new SharedArrayBuffer(4);
    const thread = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const s = require('node:dgram').createSocket('udp4');
       const count = new Int32Array(workerData);
       const got = [];
       s.on('message', (b) => {
         // RTCP (payload types 192-223 in the second byte) shares the socket (rtcp-mux).
         if (b.length < 12 || (b[1] >= 192 && b[1] <= 223)) return;
         got.push({ ssrc: b.readUInt32BE(8), seq: b.readUInt16BE(2), timestamp: b.readUInt32BE(4), marker: b[1] >= 128, at: performance.timeOrigin + performance.now() });
         Atomics.add(count, 0, 1);
       });
       s.bind(0, '127.0.0.1', () => parentPort.postMessage(s.address().port));
       parentPort.on('message', () => parentPort.postMessage(got.splice(0)));`,
      { eval: true, workerData: shared },
    );
    const port = await new Promise<number>((resolve) => thread.once('message', resolve));
    return new Receiver(thread, port, shared);
  }

  /** RTP packets received so far (any call), read without the event loop. */
  received(): number {
    return Atomics.load(this.count, 0);
  }

  /** Packets received since the last call. */
  take(): Promise<Arrival[]> {
    const reply = new Promise<Arrival[]>((resolve) => this.thread.once('message', resolve));
    this.thread.postMessage('take');
    return reply;
  }

  close(): Promise<number> {
    return this.thread.terminate();
  }
}

before(async () => {
  const mediasoup = await requireMediasoup();
  worker = await mediasoup.createWorker({ logLevel: 'none' });
  router = await worker.createRouter({ mediaCodecs: [{ kind: 'audio', mimeType: 'audio/opus', clockRate: 48_000, channels: 2 }] });
  receiver = await Receiver.start();
});
after(async () => {
  worker?.close();
  await receiver?.close();
});

const tone = (seconds: number, rate = 24000) => Int16Array.from({ length: Math.round(seconds * rate) }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (cond: () => boolean, what: string, limitMs = 20_000) => {
  const deadline = new Deadline(limitMs);
  while (!cond()) {
    if (deadline.expired) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
};

/** An agent in the router, and a PlainTransport that forwards its packets to the receiver. */
async function agentCall(senders: SenderPool, name: string): Promise<{ agent: AgentParticipant; ssrc: number; close: () => Promise<void> }> {
  const callerSide = await router.createDirectTransport();
  const mic = await callerSide.produce({ kind: 'audio', rtpParameters: { codecs: [{ ...AGENT_CODEC, parameters: { ...AGENT_CODEC.parameters } }], encodings: [{ ssrc: 4242 }] } });
  const agent = await AgentParticipant.join(router, mic.id, { callId: name, provider: 'webrtc', parameters: {} }, senders, () => {});
  const out = await router.createPlainTransport({ listenInfo: { protocol: 'udp', ip: '127.0.0.1' }, rtcpMux: true, comedia: false });
  await out.connect({ ip: '127.0.0.1', port: receiver.port });
  const consumer = await out.consume({ producerId: agent.producer.id, rtpCapabilities: router.rtpCapabilities });
  return {
    agent,
    ssrc: consumer.rtpParameters.encodings![0]!.ssrc!,
    close: async () => {
      await agent.close();
      out.close();
      callerSide.close();
    },
  };
}

/**
 * Holds the main thread until the receiver has counted `packets` more packets: no timer, socket
 * or message runs on it meanwhile, so every one of them was sent without it. Whether the stall
 * ends is the property: a sender on the main thread would leave it spinning until `limitMs` (a
 * generous deadline for a loaded machine), and the result is false.
 */
function busyWhileReceived(packets: number, limitMs = 30_000): boolean {
  const until = receiver.received() + packets;
  const end = performance.now() + limitMs;
  while (receiver.received() < until) if (performance.now() > end) return false;
  return true;
}

test('agent packets keep their 20 ms clock while the main thread is blocked', async () => {
  const senders = new SenderPool();
  const call = await agentCall(senders, 'blocked');
  try {
    await receiver.take();
    const before = receiver.received();
    call.agent.output.write({ samples: tone(4), sampleRate: 24000, time: 0 });
    await until(() => call.agent.output.position() > 0.2, 'the first packets');
    // Three stalls of the main thread, each lasting while 10 packets (200 ms of audio) go sender
    // thread → mediasoup → receiver thread: none of them waits for the main thread. (Counted,
    // not timed: a loaded machine delays every thread, but cannot make a blocked one send.)
    for (let i = 0; i < 3; i++) {
      assert.ok(busyWhileReceived(10), `stall ${i + 1}: packets kept coming while the main thread was blocked`);
      await sleep(100);
    }
    await call.agent.output.mark('end');
    await until(() => receiver.received() - before >= call.agent.output.stats.packets, 'every packet sent to arrive');
    const got = (await receiver.take()).filter((p) => p.ssrc === call.ssrc);
    assert.ok(got.length >= 190, `packets of 4 s: ${got.length}`);
    // One talkspurt, nothing lost or reordered across the stalls: consecutive sequence numbers,
    // each packet 20 ms (960 ticks at 48 kHz) of the stream's clock after the one before.
    const steps = got.slice(1).map((p, i) => [(p.seq - got[i]!.seq) & 0xffff, (p.timestamp - got[i]!.timestamp) >>> 0]);
    assert.deepEqual(steps.filter(([seq, ts]) => seq !== 1 || ts !== 960), [], 'every packet one step after the one before');
    // The thread's own account agrees: what it sent.
    assert.equal(call.agent.output.stats.packets, got.length);
  } finally {
    await call.close();
    await senders.close();
  }
});

test('interrupt drops the queued packets at once, and the played position is what left on the clock', async () => {
  const senders = new SenderPool();
  const call = await agentCall(senders, 'interrupted');
  const out = call.agent.output;
  try {
    await receiver.take();
    const before = receiver.received();
    // Everything the thread says it sent has come through mediasoup (no fixed wait for it).
    const arrived = (what: string) => until(() => receiver.received() - before >= out.stats.packets, what);
    out.write({ samples: tone(2), sampleRate: 24000, time: 0 });
    await until(() => out.position() > 0.4, 'half a second played');
    const played = await out.interrupt();
    assert.ok(played >= 0.4 && played < 1.5, `played ${played}`);
    await arrived('the packets sent before the cut');
    // A silence of at least 300 ms on the stream's clock before the answer (more on a loaded machine).
    await sleep(300);
    const spurt = (await receiver.take()).filter((p) => p.ssrc === call.ssrc);
    // Exactly what the position says, not a packet more: the queue was dropped in the thread.
    assert.equal(spurt.length, Math.round(played / 0.02));
    assert.ok(Math.abs(spurt.length * 0.02 - played) < 1e-9);
    assert.ok(out.stats.dropped > 20, `dropped ${out.stats.dropped}`);
    assert.equal(out.position(), played);
    // The next answer: a new talkspurt, the sequence running on, the timestamp on the clock's grid.
    out.write({ samples: tone(0.2), sampleRate: 24000, time: 0 });
    await out.mark('answer');
    await arrived("the answer's packets");
    const next = (await receiver.take()).filter((p) => p.ssrc === call.ssrc);
    assert.equal(next.length, 10);
    assert.ok(next[0]!.marker && !next.slice(1).some((p) => p.marker), 'the marker bit opens the new talkspurt only');
    const last = spurt.at(-1)!;
    assert.equal(next[0]!.seq, (last.seq + 1) & 0xffff);
    const ticks = ((next[0]!.timestamp - last.timestamp) >>> 0) / 960;
    assert.ok(Number.isInteger(ticks) && ticks > 1, `timestamp moved ${ticks} frames over the gap`);
    assert.ok(Math.abs(out.position() - played - 0.2) < 1e-9);
  } finally {
    await call.close();
    await senders.close();
  }
});

test('a sender thread that fails ends its own calls with a clear error; other calls go on', async () => {
  const failures: Error[] = [];
  const senders = new SenderPool({ callsPerThread: 1, onFailure: (err) => failures.push(err) });
  const a = await agentCall(senders, 'a');
  const b = await agentCall(senders, 'b');
  try {
    assert.equal(senders.size, 2, 'one thread per call here');
    const aEvents: TransportEvent[] = [];
    a.agent.events$.subscribe((e) => aEvents.push(e));
    let bEnded = false;
    b.agent.events$.subscribe(() => (bEnded = true));
    a.agent.output.write({ samples: tone(5), sampleRate: 24000, time: 0 });
    b.agent.output.write({ samples: tone(5), sampleRate: 24000, time: 0 });
    await until(() => a.agent.output.position() > 0.2 && b.agent.output.position() > 0.2, 'both calls playing');
    const pendingMark = a.agent.output.mark('never played');
    senders.crashThreadOf(a.agent.output);
    await until(() => aEvents.length >= 2, "the failed call's events");
    assert.equal(aEvents[0]!.type, 'error');
    assert.match((aEvents[0] as { message: string }).message, /sender thread failed: a crash asked for by a test/);
    assert.deepEqual(aEvents[1], { type: 'hangup', reason: 'the agent could not send audio' });
    await pendingMark; // resolves: nothing will play it
    assert.equal(failures.length, 1);
    // The other call's packets go on, and a new call gets a new thread.
    const got = await receiver.take();
    const bAt = b.agent.output.position();
    const bSent = got.filter((p) => p.ssrc === b.ssrc).length;
    for (const deadline = new Deadline(20_000); got.filter((p) => p.ssrc === b.ssrc).length < bSent + 10 && !deadline.expired; await sleep(20)) got.push(...(await receiver.take()));
    assert.ok(got.filter((p) => p.ssrc === b.ssrc).length >= bSent + 10, 'the other call still sends');
    // Counted against what the failed thread said it had sent, not against a moment: its last
    // packets may still be on their way through mediasoup on a loaded machine.
    const aReceived = got.filter((p) => p.ssrc === a.ssrc).length;
    assert.ok(aReceived <= a.agent.output.stats.packets, `the failed call sends nothing more (${aReceived} received, ${a.agent.output.stats.packets} sent)`);
    assert.ok(b.agent.output.position() > bAt && !bEnded);
    a.agent.output.write({ samples: tone(0.1), sampleRate: 24000, time: 0 }); // ignored, no throw
    const c = await agentCall(senders, 'c');
    c.agent.output.write({ samples: tone(0.2), sampleRate: 24000, time: 0 });
    await c.agent.output.mark('played');
    assert.ok(Math.abs(c.agent.output.position() - 0.2) < 1e-9);
    assert.equal(senders.size, 2);
    await c.close();
    // The failed call's caller audio ended with it (the session ends on it).
    await lastValueFrom(a.agent.audio$, { defaultValue: undefined });
  } finally {
    await a.close();
    await b.close();
    await senders.close();
  }
});
