import type { IncomingMessage } from 'node:http';

/** Why a body was not read: larger than the limit, stalled or too slow, or cut off by the client. */
export type BodyRefusal = 'too large' | 'too slow' | 'aborted';

/** Limits of {@link readBody}. */
export interface ReadBodyOptions {
  /** Most bytes accepted; a larger Content-Length is refused before reading. */
  limit: number;
  /** Longest quiet gap between chunks. */
  idleMs?: number;
  /** Longest time for the whole body. */
  totalMs?: number;
}

/**
 * A small body read whole, with its size checked while it arrives and its time bounded, so a
 * client can neither fill memory nor hold a request open. What was not read is drained.
 */
export function readBody(req: IncomingMessage, o: ReadBodyOptions): Promise<Buffer | BodyRefusal> {
  if (Number(req.headers['content-length'] ?? 0) > o.limit) {
    req.resume();
    return Promise.resolve('too large');
  }
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    let idle: NodeJS.Timeout | undefined;
    const total = o.totalMs === undefined ? undefined : setTimeout(() => give('too slow'), o.totalMs);
    const done = () => {
      clearTimeout(idle);
      clearTimeout(total);
      req.off('data', onData);
    };
    const give = (why: BodyRefusal) => {
      done();
      req.resume();
      resolve(why);
    };
    const touch = () => {
      if (o.idleMs === undefined) return;
      clearTimeout(idle);
      idle = setTimeout(() => give('too slow'), o.idleMs);
    };
    const onData = (chunk: Buffer) => {
      touch();
      size += chunk.length;
      if (size > o.limit) give('too large');
      else parts.push(chunk);
    };
    touch();
    req.on('data', onData);
    req.once('end', () => {
      done();
      resolve(Buffer.concat(parts));
    });
    req.once('aborted', () => give('aborted'));
    req.once('error', () => give('aborted'));
  });
}
