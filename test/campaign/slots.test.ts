// A campaign's slots on real Redis and a virtual clock: a slot belongs to a call (its dial id),
// kept by whoever knows the call is live, freed once its outcome is known. The same across a real
// worker's death: test/campaign/cluster-calls.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { newMeta } from '../../src/campaign/in-process.ts';
import { campaignSettings, started } from '../../src/campaign/schedule.ts';
import { CallSlots, SlotKeeper } from '../../src/campaign/slots.ts';
import { runStep } from '../../src/campaign/step.ts';
import { slotGate } from '../../src/campaign/queue.ts';
import { MemoryCampaignStore } from '../../src/campaign/store.ts';
import { OutboundCalls, twilioOutbound, type OutboundPlatform } from '../../transports/telephony/index.ts';
import { CallTokens } from '../../src/server/tokens.ts';
import { startRedis } from '../helpers/redis.ts';

const LEASE = 15_000;

/** Redis, and slots on a clock the test moves: every process of the scenario reads the same virtual time. */
async function rig() {
  const redis = await startRedis();
  const client = new Redis(redis.url);
  const time = { now: 1_000_000 };
  const now = () => time.now;
  const slots = new CallSlots(client, { leaseMs: LEASE, now });
  const keepers: SlotKeeper[] = [];
  const keeper = () => {
    const k = new SlotKeeper(slots, { now });
    keepers.push(k);
    return k;
  };
  return {
    slots,
    keeper,
    advance: (ms: number) => (time.now += ms),
    async close() {
      for (const k of keepers) k.stop();
      client.disconnect();
      await redis.stop();
    },
  };
}

test('the placing worker dies: the instance running the calls keeps their slots, no third call is admitted while they are live (many lease times), and each slot is freed by its outcome', async () => {
  const r = await rig();
  try {
    const worker = r.keeper();
    const serve = r.keeper();
    for (const d of ['cmp:0:1', 'cmp:1:1']) {
      assert.equal(await r.slots.take(d, 2), 'taken');
      worker.keep(d, 'placed');
    }
    assert.equal(await r.slots.take('cmp:2:1', 2), 'full', 'concurrency 2');
    // Call 0's session runs on the serving instance; call 1's callbacks reach it.
    serve.keep('cmp:0:1', 'session');
    serve.keep('cmp:1:1', 'callbacks');
    // The worker dies: it renews nothing from now on. Five lease times pass, the serving instance renewing.
    worker.stop();
    for (let t = 0; t < 5 * LEASE; t += LEASE / 3) {
      r.advance(LEASE / 3);
      await serve.renew();
      assert.equal(await r.slots.take('cmp:2:1', 2), 'full', `no third call at +${t + LEASE / 3} ms`);
      assert.equal(await r.slots.used('cmp'), 2);
    }
    // The session of call 0 ended here; its callbacks did not come here: this instance stops keeping it, nobody frees it.
    serve.letGo('cmp:0:1', 'session');
    r.advance(LEASE / 2);
    await serve.renew();
    assert.equal(await r.slots.take('cmp:2:1', 2), 'full', 'its lease still runs');
    // Call 1's outcome comes to this instance: its slot is freed for everyone, at once.
    await serve.free('cmp:1:1');
    assert.equal(await r.slots.take('cmp:2:1', 2), 'taken', 'a third call once one has ended');
    assert.equal(await r.slots.take('cmp:3:1', 2), 'full');
    // Call 0, kept by nobody, comes back after its lease: the safety net.
    r.advance(LEASE);
    assert.equal(await r.slots.take('cmp:3:1', 2), 'taken');
  } finally {
    await r.close();
  }
});

test('the worker recovering a dead worker\'s call takes the same dial\'s slot back, not a new one, and keeps it until the outcome; a freed slot is never brought back by a late renewal', async () => {
  const r = await rig();
  try {
    const dead = r.keeper();
    assert.equal(await r.slots.take('cmp:0:2', 1), 'taken');
    dead.keep('cmp:0:2', 'placed');
    dead.stop();
    // The job comes back to another worker before the lease ran out.
    r.advance(LEASE - 1000);
    const recovering = r.keeper();
    assert.equal(await r.slots.reclaim('cmp:0:2'), 1, 'the same slot: one call, one slot');
    recovering.keep('cmp:0:2', 'recovered');
    assert.equal(await r.slots.take('cmp:0:2', 1), 'held', 'a dial never takes a second slot');
    for (let i = 0; i < 9; i++) {
      r.advance(LEASE / 3);
      await recovering.renew();
      assert.equal(await r.slots.take('cmp:1:1', 1), 'full', 'the recovered call is still live');
    }
    await recovering.free('cmp:0:2');
    // A keeper that had not heard of the outcome renews late: the slot stays free.
    const late = r.keeper();
    late.keep('cmp:0:2', 'callbacks');
    await late.renew();
    assert.equal(await r.slots.used('cmp'), 0);
    assert.equal(await r.slots.take('cmp:1:1', 1), 'taken');
    // Campaigns count apart.
    assert.equal(await r.slots.take('other:0:1', 1), 'taken');
  } finally {
    await r.close();
  }
});

test("an instance taking a campaign call's callbacks, or running its session, keeps its slot; the call's outcome frees it there; other calls are left alone", async () => {
  const r = await rig();
  const keeper = r.keeper();
  const client: OutboundPlatform = { ...twilioOutbound(), dial: async () => ({ platformCallId: 'CA1' }) };
  // The placing worker's instance: it dials and dies; this one only takes callbacks (the records are shared in a cluster).
  const placing = new OutboundCalls({ tokens: new CallTokens() }, { platforms: { twilio: client }, from: '+966110000000' });
  const urls = () => ({ stream: 'ws://x/s', answer: 'http://x/a', status: 'http://x/st', after: 'http://x/af' });
  try {
    const here = new OutboundCalls({ tokens: new CallTokens() }, { platforms: { twilio: client }, records: placing.records, slots: keeper });
    assert.equal(await r.slots.take('cmp:4:1', 1), 'taken');
    const c = await placing.place({ to: '+966500000001', reference: 'cmp:4:1' }, urls);
    const plain = await placing.place({ to: '+966500000002', reference: 'my-own-ref' }, urls);
    await here.report(c.id, 'twilio', { CallSid: 'CA1', CallStatus: 'in-progress' });
    await here.report(plain.id, 'twilio', { CallSid: 'CA1', CallStatus: 'in-progress' });
    await here.sessionStarted(c.id);
    assert.deepEqual(keeper.kept, ['cmp:4:1'], 'only a campaign dial id is kept');
    for (let i = 0; i < 6; i++) {
      r.advance(LEASE / 3);
      await keeper.renew();
    }
    here.sessionEnded(c.id);
    assert.deepEqual(keeper.kept, ['cmp:4:1'], 'its callbacks still come here');
    assert.equal(await r.slots.take('cmp:5:1', 1), 'full', 'kept across two lease times');
    await here.report(c.id, 'twilio', { CallSid: 'CA1', CallStatus: 'completed', CallDuration: '9' });
    assert.equal(await r.slots.used('cmp'), 0);
    assert.deepEqual(keeper.kept, []);
  } finally {
    await placing.close();
    await r.close();
  }
});

test("a campaign step: the dial's slot is its dial id's, held while the call lasts; a dead worker's attempt is recovered under its own slot, taken back and kept until the platform's answer", async () => {
  const r = await rig();
  try {
    const keeper = r.keeper();
    // The worker's gate, as CampaignWorker makes it, over the rig's slots.
    const gate = slotGate(keeper);
    const store = new MemoryCampaignStore();
    const contacts = [0, 1].map((i) => ({ number: `+96650000000${i}`, variables: {} }));
    const meta = newMeta({ id: 'cmp', contacts, settings: campaignSettings({ concurrency: 1, retries: 0 }) }, new Date(0).toISOString());
    await store.create(meta, contacts);
    // Contact 0's attempt 1 was claimed and dialled by a worker that died: its slot is still held (by nobody alive).
    await store.claim('cmp', started((await store.contact('cmp', 0))!, 1, 0));
    assert.equal(await r.slots.take('cmp:0:1', 1), 'taken');
    const seen: string[] = [];
    const dialer = {
      async dial(d: { dialId: string }) {
        seen.push(`dial ${d.dialId} with ${await r.slots.used('cmp')} slot(s) in use`);
        return { outcome: 'completed' as const };
      },
      async recover(d: { dialId: string }) {
        // The recovering worker asks the platform while the call goes on: a new call finds no room meanwhile.
        for (let i = 0; i < 9; i++) {
          r.advance(LEASE / 3);
          await keeper.renew();
        }
        seen.push(`recover ${d.dialId}: ${await r.slots.take('cmp:1:1', 1)}`);
        return { outcome: 'no-answer' as const };
      },
    };
    const deps = { store, dialer, now: () => 0, gates: [gate], pollMs: 1000 };
    assert.deepEqual(await runStep(deps, 'cmp', 1), { next: 'later', at: 1000, why: 'poll' }, 'no room while the dead worker\'s call holds the slot');
    assert.deepEqual(await runStep(deps, 'cmp', 0), { next: 'done' });
    assert.deepEqual(await runStep(deps, 'cmp', 1), { next: 'done' });
    assert.deepEqual(seen, ['recover cmp:0:1: full', 'dial cmp:1:1 with 1 slot(s) in use']);
    assert.equal(await r.slots.used('cmp'), 0, 'every slot freed once its outcome was known');
    assert.equal((await store.contact('cmp', 0))!.attempts[0]!.outcome, 'no-answer');
  } finally {
    await r.close();
  }
});
