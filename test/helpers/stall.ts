/**
 * For the tests of timeouts that count run time: a real synchronous stall of this process, and a
 * local HTTP server that answers and then stalls (the answer waits on the socket while the process
 * is off the CPU, as on a loaded machine or in a paused container).
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';

/** Keeps this process busy, reading nothing, for `ms`. */
export function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** A server on 127.0.0.1 for the file's tests (started before them, closed after); `url()` is its origin. */
export function localServer(handler: RequestListener): { url(): string } {
  const server = createServer(handler);
  let origin = '';
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: () => origin };
}
