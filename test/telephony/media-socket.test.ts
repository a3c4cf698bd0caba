/**
 * The media route's WebSocket (RFC 6455) against the `ws` client over real sockets, and its reader
 * against the RFC's own example frames (section 5.7) and raw bytes a client must not send.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { acceptMediaSocket, type MediaSocket } from '../../transports/telephony/media-socket.ts';
import { WsFrameReader } from '../../transports/telephony/ws-reader.ts';

/** What a reader told its sink. */
function readerLog(maxPayload = 1 << 20) {
  const log: unknown[] = [];
  const reader = new WsFrameReader(
    {
      message: (d, binary) => log.push({ message: binary ? [...d] : d.toString('utf8') }),
      ping: (d) => log.push({ ping: d.toString() }),
      closeFrame: (code, reason) => log.push({ close: code, reason }),
      fail: (code, reason) => log.push({ fail: code, reason }),
    },
    maxPayload,
  );
  return { log, reader };
}

// RFC 6455 5.7: "A single-frame masked text message" containing "Hello".
const MASKED_HELLO = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58];
// RFC 6455 5.7: "A single-frame unmasked text message": a server must refuse it from a client.
const UNMASKED_HELLO = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f];

test('media socket reader: the RFC\'s masked "Hello", whole and cut at every byte, twice in one chunk', () => {
  for (let cut = 0; cut <= MASKED_HELLO.length; cut++) {
    const { log, reader } = readerLog();
    reader.push(Buffer.from(MASKED_HELLO.slice(0, cut)));
    reader.push(Buffer.from(MASKED_HELLO.slice(cut)));
    assert.deepEqual(log, [{ message: 'Hello' }], `cut at ${cut}`);
  }
  const { log, reader } = readerLog();
  reader.push(Buffer.from([...MASKED_HELLO, ...MASKED_HELLO]));
  assert.deepEqual(log, [{ message: 'Hello' }, { message: 'Hello' }]);
});

test('media socket reader: what a client must not send ends the reading with the RFC\'s close code', () => {
  const cases: [string, number[], number][] = [
    ['an unmasked frame (the RFC\'s unmasked "Hello")', UNMASKED_HELLO, 1002],
    ['an RSV1 bit with no extension', [0xc1, 0x80, 0, 0, 0, 0], 1002],
    ['opcode 3 (reserved)', [0x83, 0x80, 0, 0, 0, 0], 1002],
    ['a fragmented ping', [0x09, 0x80, 0, 0, 0, 0], 1002],
    ['a continuation with nothing to continue', [0x80, 0x80, 0, 0, 0, 0], 1002],
    ['a ping of 126 bytes', [0x89, 0xfe, 0x00, 0x7e], 1002],
    ['a 64-bit length over 2^32', [0x82, 0xff, 0, 0, 0, 1, 0, 0, 0, 0], 1009],
    ['a text message that is not UTF-8', [0x81, 0x81, 0, 0, 0, 0, 0xff], 1007],
    ['close code 1005 on the wire', [0x88, 0x82, 0, 0, 0, 0, 0x03, 0xed], 1002],
    ['a close payload of one byte', [0x88, 0x81, 0, 0, 0, 0, 0x03], 1002],
  ];
  for (const [what, bytes, code] of cases) {
    const { log, reader } = readerLog();
    reader.push(Buffer.from(bytes));
    reader.push(Buffer.from(MASKED_HELLO));
    assert.equal(log.length, 1, what);
    assert.equal((log[0] as { fail?: number }).fail, code, what);
  }
  // Over the limit: said as soon as the header is read, before any payload arrives.
  const { log, reader } = readerLog(1000);
  reader.push(Buffer.from([0x82, 0xfe, 0x03, 0xe9]));
  assert.deepEqual(log, [{ fail: 1009, reason: 'a message over the size limit' }]);
});

let server: Server;
let url: string;
/** The server side of each connection, as the test sees it. */
const served: { socket: MediaSocket; messages: { data: Buffer; binary: boolean }[]; closed: Promise<number>; errors: string[] }[] = [];
let closeTimeoutMs = 5000;

before(async () => {
  server = createServer();
  server.on('upgrade', (req, socket, head) => {
    const ms = acceptMediaSocket(req, socket, ['audio.example.org'], { maxPayload: 300_000, closeTimeoutMs });
    if (!ms) return;
    let closed!: (code: number) => void;
    const entry = { socket: ms, messages: [] as { data: Buffer; binary: boolean }[], closed: new Promise<number>((r) => (closed = r)), errors: [] as string[] };
    served.push(entry);
    ms.start(
      {
        message: (data, binary) => {
          entry.messages.push({ data: Buffer.from(data), binary });
          if (data.toString() !== 'quiet') ms.send(binary ? data : data.toString('utf8'), binary);
        },
        close: closed,
        error: (err) => entry.errors.push(err.message),
      },
      head,
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(() => server.close());

async function open(protocols?: string[]): Promise<WebSocket> {
  const ws = new WebSocket(url, protocols);
  await once(ws, 'open');
  return ws;
}

test('media socket: text and binary of every length encoding echo back whole through the ws client', async () => {
  const ws = await open();
  for (const n of [0, 1, 125, 126, 65535, 65536, 200_000]) {
    for (const binary of [false, true]) {
      const data = binary ? Buffer.from(Array.from({ length: n }, (_, i) => (i * 7) & 255)) : 'ب'.repeat(n >> 1) + 'x'.repeat(n & 1);
      const echoed = once(ws, 'message') as Promise<[Buffer, boolean]>;
      ws.send(data, { binary });
      const [got, isBinary] = await echoed;
      assert.equal(isBinary, binary, `${n} bytes`);
      assert.deepEqual(binary ? got : got.toString('utf8'), data, `${n} bytes, ${binary ? 'binary' : 'text'}`);
    }
  }
  ws.close();
  assert.equal(await served.at(-1)!.closed, 1005);
});

test('media socket: a message in fragments with a ping between them is one message; the ping is answered', async () => {
  const ws = await open();
  const pong = once(ws, 'pong') as Promise<[Buffer]>;
  const echoed = once(ws, 'message') as Promise<[Buffer, boolean]>;
  ws.send('مرحبا ', { fin: false });
  ws.ping('p1');
  ws.send('بكم', { fin: true });
  assert.equal((await pong)[0].toString(), 'p1');
  assert.equal((await echoed)[0].toString(), 'مرحبا بكم');
  assert.deepEqual(served.at(-1)!.messages.map((m) => m.data.toString()), ['مرحبا بكم']);
  ws.close(4000, 'bye');
  const [code] = (await once(ws, 'close')) as [number];
  assert.equal(code, 4000, 'the client\'s close code is echoed');
  assert.equal(await served.at(-1)!.closed, 4000);
});

test('media socket: hiwar\'s close reaches the client with its code and reason; too big and not UTF-8 close with 1009 and 1007', async () => {
  const ws = await open();
  served.at(-1)!.socket.close(1000, 'no start message');
  const [code, reason] = (await once(ws, 'close')) as [number, Buffer];
  assert.deepEqual([code, reason.toString()], [1000, 'no start message']);
  assert.equal(await served.at(-1)!.closed, 1000);

  const big = await open();
  big.on('error', () => {});
  big.send(Buffer.alloc(300_001), { binary: true });
  assert.equal(((await once(big, 'close')) as [number])[0], 1009);
  assert.match(served.at(-1)!.errors[0]!, /over the size limit/);

  const bad = await open();
  bad.on('error', () => {});
  bad.send(Buffer.from([0x61, 0xff]), { binary: false });
  assert.equal(((await once(bad, 'close')) as [number])[0], 1007);
});

test('media socket: the platform\'s subprotocol is chosen when offered; a request that is no upgrade gets 400', async () => {
  const ws = await open(['other', 'audio.example.org']);
  assert.equal(ws.protocol, 'audio.example.org');
  ws.close();
  const plain = await open();
  assert.equal(plain.protocol, '');
  plain.close();
  const port = (server.address() as AddressInfo).port;
  const reply = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n');
  assert.match(reply.toString('latin1'), /^HTTP\/1\.1 400 /);
});

test('media socket: an unmasked frame gets a 1002 close frame; a peer that never answers hiwar\'s close is cut', async () => {
  closeTimeoutMs = 200;
  const port = (server.address() as AddressInfo).port;
  const handshake = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';
  const reply = await rawExchange(port, handshake, Buffer.from(UNMASKED_HELLO));
  const text = reply.toString('latin1');
  // RFC 6455 1.3: the sample nonce's accept value.
  assert.match(text, /Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=\r\n/);
  const frame = reply.subarray(text.indexOf('\r\n\r\n') + 4);
  assert.equal(frame[0], 0x88, 'a close frame');
  assert.equal(frame.readUInt16BE(2), 1002);

  const before = served.length;
  const sock = connect(port, '127.0.0.1');
  sock.write(handshake);
  await waitUntil(() => served.length > before);
  const ended = once(sock, 'close');
  sock.on('data', () => {});
  served.at(-1)!.socket.close(1000, 'bye');
  assert.equal(await served.at(-1)!.closed, 1006, 'no close frame came back');
  await ended;
  closeTimeoutMs = 5000;
});

/** Writes a request (and bytes after it) on a raw socket, and resolves with all it gets until the server closes. */
function rawExchange(port: number, request: string, then?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock: Socket = connect(port, '127.0.0.1', () => {
      sock.write(request);
      if (then) sock.write(then);
    });
    const got: Buffer[] = [];
    sock.on('data', (d) => got.push(d));
    sock.on('error', reject);
    sock.on('close', () => resolve(Buffer.concat(got)));
  });
}

async function waitUntil(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok());
}
