import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { test } from 'node:test';
import { readBody, type ReadBodyOptions } from '../../src/server/read-body.ts';

/** A real server that reads each request's body with `o` and hands back what readBody gave. */
async function server(o: ReadBodyOptions) {
  const results: Array<Buffer | string> = [];
  const waiters: Array<(r: Buffer | string) => void> = [];
  const srv = createServer(async (req: IncomingMessage, res) => {
    const r = await readBody(req, o);
    const w = waiters.shift();
    if (w) w(r);
    else results.push(r);
    res.end();
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  const next = () => new Promise<Buffer | string>((r) => (results.length ? r(results.shift()!) : waiters.push(r)));
  return { port, next, srv, close: () => new Promise((r) => srv.close(r)) };
}

test('a body within the limit is read whole, byte for byte', async () => {
  const s = await server({ limit: 64 });
  const req = request({ port: s.port, method: 'POST', host: '127.0.0.1' });
  req.write('سلام ');
  req.end('عليكم');
  assert.equal(String(await s.next()), 'سلام عليكم');
  await s.close();
});

test('a Content-Length over the limit is refused before reading; a chunked body over it while reading', async () => {
  const s = await server({ limit: 8 });
  request({ port: s.port, method: 'POST', host: '127.0.0.1', headers: { 'content-length': '9' } }).end('123456789');
  assert.equal(await s.next(), 'too large');
  const chunked = request({ port: s.port, method: 'POST', host: '127.0.0.1' });
  chunked.write('12345');
  chunked.end('67890');
  assert.equal(await s.next(), 'too large');
  await s.close();
});

test('a body that stalls past idleMs, or runs past totalMs, is too slow; a cut connection is aborted', async () => {
  const idle = await server({ limit: 64, idleMs: 50 });
  const stalled = request({ port: idle.port, method: 'POST', host: '127.0.0.1' });
  stalled.on('error', () => {});
  stalled.write('12');
  assert.equal(await idle.next(), 'too slow');
  stalled.destroy();
  await idle.close();

  const total = await server({ limit: 1 << 20, totalMs: 80 });
  const trickle = request({ port: total.port, method: 'POST', host: '127.0.0.1' });
  trickle.on('error', () => {});
  const timer = setInterval(() => trickle.write('x'), 10);
  assert.equal(await total.next(), 'too slow');
  clearInterval(timer);
  trickle.destroy();
  await total.close();

  const untimed = await server({ limit: 64 });
  const sock = connect(untimed.port, '127.0.0.1');
  untimed.srv.once('request', () => sock.destroy());
  sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12');
  assert.equal(await untimed.next(), 'aborted');
  await untimed.close();
});
