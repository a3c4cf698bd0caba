/**
 * The child side of `PeerProcess` (werift-peer-process.ts): one WeriftPeer driven over IPC. Each
 * packet it receives is reported (source, RTP fields, arrival time); commands: join, say, leave,
 * drop. Decoding is off: the parent reads packets, not audio.
 */
import { WeriftPeer } from './werift-peer.ts';

type Command = { t: 'join'; url: string; token: string } | { t: 'say'; pcm: number[] } | { t: 'leave' } | { t: 'drop' };

let peer: WeriftPeer | undefined;
let reported = new Map<string, number>();

const send = (m: unknown) => process.send?.(m);

/** New packets since the last report, every 20 ms (one message per packet would be 50 a second per stream). */
const reporter = setInterval(() => {
  if (!peer) return;
  for (const [id, r] of peer.received) {
    const from = reported.get(id) ?? 0;
    if (r.packets.length > from) send({ t: 'packets', source: r.source, packets: r.packets.slice(from) });
    reported.set(id, r.packets.length);
  }
}, 20);

// The test that started this process is gone: so is its caller.
process.on('disconnect', () => process.exit(0));

process.on('message', (m: Command) => {
  void (async () => {
    try {
      if (m.t === 'join') {
        peer = await WeriftPeer.join(m.url, m.token, { decode: false });
        reported = new Map();
        send({ t: 'joined', role: peer.role });
      } else if (m.t === 'say') {
        peer!.say(Int16Array.from(m.pcm));
        send({ t: 'said' });
      } else {
        clearInterval(reporter);
        await (m.t === 'leave' ? peer?.leave() : peer?.drop());
        send({ t: 'done' });
      }
    } catch (err) {
      send({ t: 'error', message: (err as Error).message });
    }
  })();
});
