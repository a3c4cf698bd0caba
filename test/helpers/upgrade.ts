import WebSocket from 'ws';

/**
 * How a WebSocket upgrade to `url` is answered: 101 when accepted (the socket is then dropped),
 * else the HTTP status of the refusal; -1 when the connection itself fails.
 */
export function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on('open', () => {
      ws.terminate();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.on('error', () => resolve(-1));
  });
}
