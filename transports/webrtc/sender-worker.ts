/**
 * The agent sender thread: the 20 ms packet clock, every call's Opus encoder and the RTP sends
 * (UDP to each call's mediasoup PlainTransport) run here, away from the main event loop, so a
 * session's work or a GC of the main isolate cannot hold agent packets back. The main thread
 * hands PCM in by transfer and gets back, after each tick, what every call has sent
 * (`sender-thread.ts`).
 */
import { createSocket } from 'node:dgram';
import { parentPort, workerData } from 'node:worker_threads';
import { AgentOutput } from './agent-output.ts';
import { PacketClock } from './packet-clock.ts';
import { RECORD, RECORD_FIELDS, type FromSender, type SenderThreadData, type ToSender } from './sender-protocol.ts';

interface Call {
  out: AgentOutput;
  received: number;
  sent: number;
  queued: number;
  dirty: boolean;
}

const port = parentPort!;
const data = workerData as SenderThreadData;
const clock = new PacketClock(data.clock);
const calls = new Map<number, Call>();
// One socket for every call of the thread: each PlainTransport (comedia) learns it from the first packet.
const socket = createSocket('udp4');
socket.bind(0, '127.0.0.1');
socket.unref();
/** A packet that cannot leave (its transport closed as the call ended) is one packet lost, not the thread's end. */
const ignoreSendError = () => {};
const post = (m: FromSender, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/** Listens on the clock while there are calls: after every call's send phase, before the encoders. */
let unsubscribeFlush: (() => void) | undefined;

function record(id: number, c: Call, into: Float64Array, at: number): void {
  const s = c.out.stats;
  into[at + RECORD.id] = id;
  into[at + RECORD.sent] = c.sent;
  into[at + RECORD.queued] = c.queued;
  into[at + RECORD.received] = c.received;
  into[at + RECORD.packets] = s.packets;
  into[at + RECORD.latePackets] = s.latePackets;
  // The output's worst lateness since the previous record: the main side keeps the maximum.
  into[at + RECORD.maxLateMs] = s.maxLateMs;
  s.maxLateMs = 0;
  into[at + RECORD.dropped] = s.dropped;
  into[at + RECORD.talkspurts] = s.talkspurts;
  c.dirty = false;
}

function one(id: number, c: Call): Float64Array {
  const r = new Float64Array(RECORD_FIELDS);
  record(id, c, r, 0);
  return r;
}

function flush(): void {
  let n = 0;
  for (const c of calls.values()) if (c.dirty) n++;
  if (!n) return;
  const records = new Float64Array(n * RECORD_FIELDS);
  let at = 0;
  for (const [id, c] of calls) {
    if (!c.dirty) continue;
    record(id, c, records, at);
    at += RECORD_FIELDS;
  }
  post({ t: 'tick', records }, [records.buffer as ArrayBuffer]);
}

function open(m: Extract<ToSender, { t: 'open' }>): void {
  // The flush listens before the first output, so it runs after every output's send.
  unsubscribeFlush ??= clock.subscribe(
    () => {},
    () => flush(),
  );
  // A copy: the output reuses its packet buffer, and the send completes after this call returns.
  const out = new AgentOutput((rtp) => socket.send(Buffer.from(rtp), m.port, m.host, ignoreSendError), clock, m.opts);
  const c: Call = { out, received: 0, sent: 0, queued: 0, dirty: false };
  out.playback$.subscribe((u) => {
    c.sent = u.sent;
    c.queued = u.queued;
    c.dirty = true;
  });
  calls.set(m.id, c);
}

async function handle(m: ToSender): Promise<void> {
  switch (m.t) {
    case 'open':
      return open(m);
    case 'write': {
      const c = calls.get(m.id);
      if (!c) return;
      c.received += m.samples.length;
      c.out.enqueue(m.samples);
      return;
    }
    case 'clear': {
      const c = calls.get(m.id);
      if (c) await c.out.interrupt();
      const records = c ? one(m.id, c) : undefined;
      return post({ t: 'reply', req: m.req, records }, records ? [records.buffer as ArrayBuffer] : []);
    }
    case 'close': {
      const c = calls.get(m.id);
      if (!c) return;
      calls.delete(m.id);
      await c.out.close();
      if (!calls.size) unsubscribeFlush = void unsubscribeFlush?.();
      return;
    }
    case 'shutdown':
      // Ends the thread from its own JavaScript: a terminate() from outside could land inside a
      // native encode, and libopus's binding aborts the process when it cannot throw there.
      return process.exit(0);
    case 'crash':
      throw new Error('a crash asked for by a test');
    case 'observe':
      try {
        post({ t: 'reply', req: m.req, value: await (await observer)!(m.msg) });
      } catch (err) {
        post({ t: 'reply', req: m.req, error: (err as Error).message });
      }
  }
}

type ObserverHandler = (msg: unknown) => unknown;
// The observer listens on the clock before any call (a trace wants to see every tick's head).
const observer: Promise<ObserverHandler | undefined> = data.observer
  ? import(data.observer).then((mod: { attach: (clock: PacketClock) => ObserverHandler }) => mod.attach(clock))
  : Promise.resolve(undefined);
// Messages wait for the observer, in order; then they run as they come.
let ready = false;
void observer.then(() => (ready = true));
// A failure in here is the thread's end (the main side ends its calls): rethrown, not swallowed.
const run = (m: ToSender) =>
  handle(m).catch((err: unknown) =>
    setImmediate(() => {
      throw err;
    }),
  );
port.on('message', (m: ToSender) => {
  if (ready) void run(m);
  else void observer.then(() => run(m));
});
