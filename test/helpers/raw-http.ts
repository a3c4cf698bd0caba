import { connect } from 'node:net';

/**
 * Sends bytes as they are on a fresh TCP connection and resolves with everything the server
 * answered before it closed (or `waitMs` passed). For requests fetch refuses to send.
 */
export function rawHttp(port: number, request: string | Buffer, waitMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    const parts: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      sock.destroy();
      resolve(Buffer.concat(parts).toString('utf8'));
    };
    const timer = setTimeout(done, waitMs);
    sock.on('data', (c) => {
      parts.push(c);
      // One complete answer is enough: a keep-alive connection would stay open.
      const text = Buffer.concat(parts).toString('utf8');
      const m = /content-length: (\d+)/i.exec(text);
      const head = text.indexOf('\r\n\r\n');
      if (m && head >= 0 && Buffer.byteLength(text) - head - 4 >= Number(m[1])) done();
      if (/transfer-encoding: chunked/i.test(text) && text.endsWith('\r\n0\r\n\r\n')) done();
    });
    sock.on('error', done);
    sock.on('close', done);
    sock.write(request);
  });
}

/** Status and parsed JSON body of a raw HTTP answer. */
export function parseAnswer(text: string): { status: number; body: any } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  let bodyText = text.slice(head.length + 4);
  if (/transfer-encoding: chunked/i.test(head)) {
    let out = '';
    for (let at = 0; ; ) {
      const eol = bodyText.indexOf('\r\n', at);
      const size = parseInt(bodyText.slice(at, eol), 16);
      if (!size) break;
      out += Buffer.from(bodyText.slice(eol + 2)).subarray(0, size).toString();
      at = eol + 2 + Buffer.from(bodyText.slice(eol + 2)).subarray(0, size).toString().length + 2;
    }
    bodyText = out;
  }
  let body: unknown = bodyText;
  try {
    body = JSON.parse(bodyText);
  } catch {
    // not JSON
  }
  return { status, body };
}
