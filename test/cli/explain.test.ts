import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { explainError } from '../../src/cli/explain.ts';
import { ensurePortsFree } from '../../src/cli/serve-preflight.ts';

const listen = (server: Server, port: number) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });

test('a port already in use names the port and what to do', async () => {
  const first = createServer();
  await listen(first, 0);
  const { port } = first.address() as { port: number };
  try {
    const err = await listen(createServer(), port).then(() => assert.fail('listened twice'), (e: unknown) => e);
    assert.equal(
      explainError(err),
      `port ${port} on 127.0.0.1 is already taken (by another hiwar?): choose another (--port N; 0 takes a free one)`,
    );
  } finally {
    await new Promise((r) => first.close(r));
  }
});

test('a taken AudioSocket port is named with its own flag, not --port', async () => {
  const first = createServer();
  await listen(first, 0);
  const { port } = first.address() as { port: number };
  try {
    const err = await ensurePortsFree('127.0.0.1', { port: 0, flag: '--port' }, { port, flag: '--audiosocket-port' }).then(() => assert.fail('free'), (e: unknown) => e);
    assert.equal(explainError(err), `port ${port} on 127.0.0.1 is already taken (by another hiwar?): choose another (--audiosocket-port N; 0 takes a free one)`);
  } finally {
    await new Promise((r) => first.close(r));
  }
});

test('other errors keep their first line', () => {
  assert.equal(explainError(new Error('first\nsecond')), 'first');
});
