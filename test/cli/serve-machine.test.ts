/** The machine's call count of `hiwar serve --workers N` (pure) and the --workers flag. */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { MachineAdmission, MachineCalls, MachineDrain, MachineRequests, type MachineChannel, type MachineMessage } from '../../src/cli/serve-machine.ts';
import { describeAwaited } from '../../src/server/drain-wait.ts';
import type { Transport } from '../../src/transport/types.ts';
import { workerCount } from '../../src/cli/serve-workers.ts';
import { UsageError } from '../../src/cli/args.ts';
import { PrimaryCallRecords, type RecordsOp } from '../../src/cli/serve-machine-records.ts';
import type { OutboundCall } from '../../transports/telephony/outbound/outbound-call.ts';

test('the machine count refuses past the limit across workers; a release or a dead worker frees places', () => {
  const m = new MachineCalls();
  assert.ok(m.acquire(1, 'a', 3));
  assert.ok(m.acquire(2, 'b', 3));
  assert.ok(m.acquire(1, 'c', 3));
  assert.equal(m.acquire(2, 'd', 3), false, 'the fourth call is refused, whichever worker asks');
  assert.equal(m.calls, 3);
  m.release(2, 'b');
  m.release(2, 'b');
  assert.equal(m.calls, 2, 'a second release of one call changes nothing');
  m.release(2, 'a');
  assert.equal(m.calls, 2, 'a worker cannot release another worker\'s call');
  assert.equal(m.releaseWorker(1), 2, 'a dead worker gives back every place it held');
  assert.equal(m.calls, 0);
  assert.ok(m.acquire(2, 'e', 1));
});

test('--workers takes a whole number or auto', () => {
  assert.equal(workerCount(undefined, 'u'), 1);
  assert.equal(workerCount('3', 'u'), 3);
  assert.equal(workerCount('auto', 'u'), availableParallelism());
  for (const bad of ['0', '1.5', 'two', '-1', '', '1e2', '257']) assert.throws(() => workerCount(bad, 'u'), UsageError, bad);
});

test('a worker refusing a call past the machine\'s --max-calls says so in its log, as one process does (it was only a counter)', async () => {
  // The primary's side of the channel: the machine count, with one place.
  const count = new MachineCalls();
  const listeners: ((m: unknown) => void)[] = [];
  const channel: MachineChannel = {
    send: (m: MachineMessage) => {
      if (m.hiwar === 'acquire') queueMicrotask(() => listeners.forEach((l) => l({ hiwar: 'acquired', id: m.id, ok: count.acquire(1, m.id, m.max), calls: count.calls })));
    },
    on: (_event, listener) => listeners.push(listener),
  };
  const warned: [Record<string, unknown>, string][] = [];
  const admission = new MachineAdmission(channel, new MachineRequests(channel), 1, undefined, { warn: ((o: Record<string, unknown>, msg: string) => void warned.push([o, msg])) as never });
  let hungUp = 0;
  const transport = (callId: string) => ({ call: { provider: 'audiosocket', callId }, hangup: async () => void hungUp++, output: { close: async () => {} } }) as unknown as Transport;
  assert.ok(await admission.admit(transport('first')), 'the first call takes the one place');
  assert.deepEqual(warned, []);
  assert.equal(await admission.admit(transport('second')), undefined);
  assert.equal(hungUp, 1);
  assert.deepEqual(warned, [[{ provider: 'audiosocket', call: 'second', reason: 'full', machineCalls: 1, maxCalls: 1 }, 'call refused: the machine holds --max-calls calls']]);
});

test("the primary's drain line sums what each worker waits for: placed calls ringing and answered calls' media, each bound the latest", async () => {
  const now = 1_000_000;
  const d = new MachineDrain();
  const all = d.expect([1, 2, 3], 60_000);
  d.report(1, { media: 0, ringing: 2, ringingUntil: now + 34_800 });
  d.report(2, { media: 1, mediaUntil: now + 4_900, ringing: 1, ringingUntil: now + 20_000 });
  // Worker 3 exits without a report (it was still starting): the line does not wait for it.
  d.done(3);
  const c = await all;
  assert.deepEqual(c, { media: 1, mediaUntil: now + 4_900, ringing: 3, ringingUntil: now + 34_800 });
  assert.equal(describeAwaited(c, now), ', the media of 1 answered call(s) awaited up to 4.9 s, 3 placed call(s) ringing, awaited up to 34.8 s');
  assert.equal(describeAwaited({ media: 0, ringing: 0 }, now), '', 'nothing awaited: nothing said');
});

test("the primary's drain line waits for a silent worker no longer than its bound, and counts a report that came before it asked", async () => {
  const d = new MachineDrain();
  // Ctrl-C reached worker 1 before the primary asked.
  d.report(1, { media: 0, ringing: 1, ringingUntil: 5 });
  const late = await d.expect([1, 2], 20);
  assert.deepEqual(late, { media: 0, ringing: 1, ringingUntil: 5 }, "worker 2 never said: the line goes with worker 1's");
});

test("the primary's records give a respawned worker the calls its predecessor placed that are not over, and no other worker's", async () => {
  const records = new PrimaryCallRecords();
  let n = 0;
  const ask = async (worker: number, q: RecordsOp) => {
    const { answer } = await records.answer({ hiwar: 'records', id: String(++n), ...q }, worker);
    assert.ok(answer.hiwar === 'records-done' && answer.error === undefined, JSON.stringify(answer));
    return answer.result;
  };
  const call = (id: string): OutboundCall => ({ id, platform: 'twilio', to: '+966500000001', from: '+966500000002', variables: {}, status: 'queued', createdAt: new Date(0).toISOString() });
  for (const [worker, id] of [[1, 'a'], [2, 'b'], [1, 'c'], [1, 'd']] as const) await ask(worker, { op: 'create', call: call(id) });
  await ask(2, { op: 'append', callId: 'a', change: { kind: 'status', at: new Date(1000).toISOString(), update: { status: 'ringing', raw: 'ringing' } } });
  // Another worker took the busy callback of worker 1's call c: c is over, whoever recorded it.
  await ask(2, { op: 'append', callId: 'c', change: { kind: 'status', at: new Date(2000).toISOString(), update: { status: 'busy', raw: 'busy' } } });
  assert.deepEqual(await ask(1, { op: 'orphans' }), ['a', 'd']);
  assert.deepEqual(await ask(2, { op: 'orphans' }), ['b']);
  assert.deepEqual(await ask(3, { op: 'orphans' }), []);
});
