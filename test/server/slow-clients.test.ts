/**
 * Slow clients against the agent server's own port (docs/security.md, "Slow clients"): request
 * heads that never end, webhook bodies that never arrive, upgrades refused whose peer never
 * closes, upgrade heads that never end. With short limits, every such connection is cut; Node's
 * own defaults (60 s for a head, 300 s for a request, never for a refused upgrade) would keep
 * them all.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { AgentServer } from '../../src/server/server.ts';
import { CallTokens } from '../../src/server/tokens.ts';
import { createLogger } from '../../src/session/logger.ts';
import { telephonyPlugin } from '../../transports/telephony/index.ts';
import { Deadline } from '../helpers/deadline.ts';

const EACH = 50;
let server: AgentServer;
let port: number;

before(async () => {
  const logger = createLogger('silent');
  server = new AgentServer({
    port: 0,
    logger,
    sessions: () => {
      throw new Error('no call starts in these tests');
    },
    limits: { headersTimeoutMs: 400, requestTimeoutMs: 800, upgradeIdleMs: 400, checkEveryMs: 100 },
  });
  // Closed (no --open): Twilio's webhook without its secret is refused, after its body is read.
  server.use(telephonyPlugin(server.host, { tokens: new CallTokens(), logger, bodyTimeoutMs: 600 }));
  ({ port } = await server.listen());
});
after(() => server.close());

/** A TCP client that never closes its side by itself (as a slow or hostile client). */
function slow(bytes: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    s.on('error', () => {});
    s.once('connect', () => {
      s.write(bytes);
      resolve(s);
    });
    s.once('error', reject);
  });
}

test(`${EACH} slow heads, ${EACH} slow webhook bodies, ${EACH} refused upgrades left open and ${EACH} unfinished upgrade heads are all cut`, async () => {
  const sockets = await Promise.all([
    ...Array.from({ length: EACH }, () => slow('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ')),
    ...Array.from({ length: EACH }, () => slow('POST /telephony/twilio HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nCallSid=CA')),
    ...Array.from({ length: EACH }, () => slow('GET /telephony/twilio/stream/forged HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n')),
    ...Array.from({ length: EACH }, () => slow('GET /telephony/pcm?rate=8000 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n')),
  ]);
  const answers = sockets.map((s) => {
    let text = '';
    s.on('data', (c: Buffer) => (text += c.toString('latin1')));
    return () => text;
  });
  // Generous for a loaded machine, far below Node's defaults (60 s, 300 s, never).
  const open = async () => server.openConnections();
  const give = new Deadline(40_000);
  let n = await open();
  while (n > 0 && !give.expired) {
    await new Promise((r) => setTimeout(r, 100));
    n = await open();
  }
  assert.equal(n, 0, 'every slow connection was cut by the server');
  const body = answers.slice(EACH, 2 * EACH).map((a) => a());
  assert.ok(body.every((t) => /^HTTP\/1\.1 408/.test(t)), `the slow bodies were answered 408: ${body[0]}`);
  const refused = answers.slice(2 * EACH, 3 * EACH).map((a) => a());
  assert.ok(refused.every((t) => /^HTTP\/1\.1 401/.test(t)), 'the refused upgrades were told why before being cut');
  for (const s of sockets) s.destroy();
});
