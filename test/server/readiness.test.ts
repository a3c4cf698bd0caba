/** `/readyz` of an `AgentServer` with a health hook (a worker of `--workers N`, a cluster member). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentServer } from '../../src/server/server.ts';
import { createLogger } from '../../src/session/logger.ts';

test("a draining server's 503 keeps what the health hook adds (which worker answered, the machine's calls): it said only activeCalls", async () => {
  const server = new AgentServer({
    port: 0,
    logger: createLogger('silent'),
    sessions: () => Promise.reject(new Error('no calls here')),
    health: () => ({ ready: true, body: { status: 'ok', activeCalls: 0, worker: 2, machineCalls: 3 } }),
  });
  const { url } = await server.listen();
  const readyz = async () => {
    const res = await fetch(`${url}/readyz`, { headers: { connection: 'close' } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  try {
    server.startupFinished();
    assert.deepEqual(await readyz(), { status: 200, body: { status: 'ok', activeCalls: 0, worker: 2, machineCalls: 3 } });
    // A call held open keeps the drain going while /readyz is asked.
    const hold = server.calls.hold({ provider: 'pcm' })!;
    const drained = server.calls.drain(5_000);
    assert.deepEqual(await readyz(), { status: 503, body: { status: 'draining', activeCalls: 0, worker: 2, machineCalls: 3 } });
    hold.release();
    await drained;
  } finally {
    await server.close();
  }
});
