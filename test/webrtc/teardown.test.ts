import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { startWebRtcServer, until } from '../helpers/webrtc-server.ts';
import { WeriftPeer } from '../helpers/werift-peer.ts';

let sandbox: Running;

before(async () => {
  sandbox = await runSandbox();
});
after(() => sandbox?.close());

// No test-level timeouts: a fixed one is wall time, which a loaded machine stretches; the waits
// below are load-scaled (test/helpers/deadline.ts) and the runner ends a file at 900 s.
test('teardown: 20 joins and leaves leave no transports, producers, consumers or routers in the worker', async () => {
  const server = await startWebRtcServer(sandbox.client, { agent: { greeting: undefined } });
  try {
    // Four rounds of five callers at once: 20 joins and leaves, in parallel as real ones come.
    for (let round = 0; round < 4; round++) {
      const callers = await Promise.all(Array.from({ length: 5 }, async () => WeriftPeer.join(server.url, (await server.token()).token)));
      await Promise.all(callers.map((c) => c.sig.waitFor('newConsumer', (n) => n.data.source === 'agent')));
      // Each room: the caller's send and receive transports and the agent's direct (caller audio
      // in) and plain (its voice out, from the sender thread) transports; the caller's and the
      // agent's producers; each consumed once.
      assert.deepEqual(await server.plugin.resources(), { workers: 1, routers: 5, transports: 20, producers: 10, consumers: 10 });
      // Some leave politely, the others just drop (a closed tab).
      await Promise.all(callers.map((c, i) => (i % 2 ? c.leave() : c.drop())));
      await until(() => server.plugin.rooms === 0, `round ${round} to close`);
    }
    assert.deepEqual(await server.plugin.resources(), { workers: 1, routers: 0, transports: 0, producers: 0, consumers: 0 });
    assert.equal(server.host.calls.length, 20);
    assert.ok(server.host.calls.every((c) => c.report !== undefined), 'every call ended');
  } finally {
    await server.close();
  }
});
