import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { after, before, test } from 'node:test';
import { AuthenticationError, RateLimitError, REFUSAL_BODY_LIMITS, ServerError, ServiceClient, TransportError } from '../../src/service/index.ts';
import { classifyFailure } from '../../src/session/failure.ts';

/**
 * A real HTTP server that refuses every WebSocket upgrade, the way a gateway or the service does:
 * the test names how (status, headers, body, and what happens to the connection after).
 */
const KEY = 'sk-refusal-test-0123456789abcdef';
let refuse: (socket: Duplex) => void = () => {};
let server: Server;
let baseUrl: string;

before(async () => {
  server = createServer((_req, res) => res.writeHead(404).end());
  server.on('upgrade', (_req, socket: Duplex) => refuse(socket));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const client = () => new ServiceClient({ apiKey: KEY, baseUrl, timeoutMs: 20_000 });
const head = (status: string, extra = '') => `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\n${extra}`;
const envelope = (code: number, message: string) => JSON.stringify({ errorCode: code, errorMessage: message });

test("each socket's refused handshake is the status's typed error, with the body's message (key redacted) and Retry-After", async () => {
  const body = envelope(42901, `too many concurrent sessions for key ${KEY}`);
  refuse = (s) => s.end(`${head('429 Too Many Requests', `retry-after: 7\r\ncontent-length: ${body.length}\r\nconnection: close\r\n`)}\r\n${body}`);
  const c = client();
  for (const open of [() => c.openListen(), () => c.openTts({ voice_id: 'v' }), () => c.openLegacyStt()]) {
    await assert.rejects(open(), (e: unknown) => {
      assert.ok(e instanceof RateLimitError, String(e));
      assert.equal(e.status, 429);
      assert.equal(e.errorCode, 42901);
      assert.match(e.message, /too many concurrent sessions for key \[redacted\]/);
      assert.ok(!e.message.includes(KEY) && !e.errorMessage.includes(KEY));
      assert.equal(e.retryAfterMs, 7000);
      assert.equal(e.retryable, true);
      // What a call's error event says of it: the limit in the service's words, not the status alone.
      assert.equal(classifyFailure(e, 'stt').message, 'speech recognition is over its rate or concurrency limit (HTTP 429: too many concurrent sessions for key [redacted])');
      return true;
    });
  }
});

test("a 401 at the handshake carries the service's words and the hint that says where the key is set", async () => {
  const body = envelope(40101, 'Invalid API key');
  refuse = (s) => s.end(`${head('401 Unauthorized', `content-length: ${body.length}\r\n`)}\r\n${body}`);
  await assert.rejects(client().openListen(), (e: unknown) => {
    assert.ok(e instanceof AuthenticationError);
    assert.match(e.message, /^401 40101 \/listen: Invalid API key: the service refused the API key: set the right one in HIWAR_API_KEY/);
    assert.match(e.hint ?? '', /HIWAR_REGION/);
    return true;
  });
});

test('a refusal whose connection drops before its body ends keeps its status and what came of the message', async () => {
  const body = envelope(50301, 'speech recognition is overloaded');
  refuse = (s) => {
    s.write(`${head('503 Service Unavailable', `content-length: ${body.length + 100}\r\n`)}\r\n${body}`);
    setTimeout(() => s.destroy(), 30);
  };
  await assert.rejects(client().openListen(), (e: unknown) => {
    assert.ok(e instanceof ServerError, `not a ServerError: ${String(e)}`);
    assert.equal(e.status, 503);
    assert.match(e.message, /speech recognition is overloaded/);
    return true;
  });
});

test('a refusal whose body never ends is the status after a short wait, not a handshake timeout', async () => {
  const body = envelope(50301, 'draining');
  let socket: Duplex | undefined;
  refuse = (s) => {
    socket = s;
    // Chunked, and the last chunk never comes: the connection stays open.
    s.write(`${head('503 Service Unavailable', 'transfer-encoding: chunked\r\n')}\r\n${body.length.toString(16)}\r\n${body}\r\n`);
  };
  await assert.rejects(client().openListen(), (e: unknown) => {
    assert.ok(!(e instanceof TransportError), `a transport error: ${String(e)}`);
    assert.ok(e instanceof ServerError);
    assert.match(e.message, /^503 50301 \/listen: draining/);
    return true;
  });
  // The handshake allows 20 s (a timeout there was the old answer); the refusal's wait is shorter.
  assert.ok(REFUSAL_BODY_LIMITS.waitMs < 20_000);
  socket?.destroy();
});

test('no socket offers permessage-deflate: audio is not worth compressing, and a server that accepts would zlib every message', async () => {
  const offered: (string | undefined)[] = [];
  server.removeAllListeners('upgrade');
  server.on('upgrade', (req, socket: Duplex) => {
    offered.push(req.headers['sec-websocket-extensions']);
    socket.end(`${head('503 Service Unavailable', 'content-length: 0\r\n')}\r\n`);
  });
  try {
    const c = client();
    for (const open of [() => c.openListen(), () => c.openTts({ voice_id: 'v' }), () => c.openLegacyStt()]) await assert.rejects(open());
  } finally {
    server.removeAllListeners('upgrade');
    server.on('upgrade', (_req, socket: Duplex) => refuse(socket));
  }
  assert.equal(offered.length, 3);
  assert.deepEqual(offered, [undefined, undefined, undefined], 'the handshake names no extension');
});
