/**
 * A stand-in for a telephony platform as a campaign's dialler meets it, over real HTTP: `POST
 * /dial` places a call that rings and talks for `callMs` real ms and then ends as the script says
 * (the answer comes when it ends); `GET /dial/:id` is the platform's record of a call, asked by a
 * worker that finds an attempt started by a worker that died (it answers once the call has
 * ended; 404 for a call never placed). Every dial is kept, with who placed it and when.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallResult, DialAttempt, Dialer } from '../../src/campaign/types.ts';
import { outcomeOf } from './script.ts';

export interface PlacedCall {
  dialId: string;
  index: number;
  attempt: number;
  worker: string;
  /** The campaign clock's time the worker sent (its `now` at the dial). */
  at: number;
  ended?: CallResult;
}

export interface PhoneNetwork {
  url: string;
  calls: PlacedCall[];
  /** Calls ringing or talking now, and the most there ever were at once. */
  live: number;
  most: number;
  close(): Promise<void>;
}

export async function startPhoneNetwork(callMs: number): Promise<PhoneNetwork> {
  const ends = new Map<string, Promise<CallResult>>();
  const net: PhoneNetwork = { url: '', calls: [], live: 0, most: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', async () => {
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'POST' && req.url === '/dial') {
        const d = JSON.parse(Buffer.concat(parts).toString()) as { dialId: string; index: number; attempt: number; worker: string; at: number };
        const call: PlacedCall = { ...d };
        net.calls.push(call);
        net.most = Math.max(net.most, ++net.live);
        // The call lives its life whether or not the worker that placed it is still there.
        const end = new Promise<void>((r) => setTimeout(r, callMs)).then(() => {
          net.live--;
          const outcome = outcomeOf(d.index, d.attempt);
          call.ended = { outcome, callId: `call-${d.dialId}`, ...(outcome === 'completed' ? { durationS: 42, amd: 'human', transcript: 'caller: ألو… نعم أنا', toolResults: { confirmed: true } } : {}) };
          return call.ended;
        });
        ends.set(d.dialId, end);
        return json(200, await end);
      }
      const id = /^\/dial\/(.+)$/.exec(req.url ?? '')?.[1];
      if (req.method === 'GET' && id) {
        const end = ends.get(decodeURIComponent(id));
        return end ? json(200, await end) : json(404, { error: 'no such call' });
      }
      json(404, { error: 'unknown route' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  net.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  net.close = () => new Promise((r) => (server.closeAllConnections(), server.close(() => r())));
  return net;
}

/** The dialler a worker uses against the network: its `recover` asks the platform how the call ended. */
export function networkDialer(url: string, worker: string, now: () => number): Dialer {
  return {
    async dial(d: DialAttempt) {
      const res = await fetch(`${url}/dial`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dialId: d.dialId, index: d.index, attempt: d.attempt, worker, at: now() }) });
      return (await res.json()) as CallResult;
    },
    async recover(d: DialAttempt) {
      const res = await fetch(`${url}/dial/${encodeURIComponent(d.dialId)}`);
      return res.ok ? ((await res.json()) as CallResult) : undefined;
    },
  };
}
