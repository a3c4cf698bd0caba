import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { firstValueFrom, toArray } from '../helpers/rx.ts';
import type { TransportEvent } from '../../src/transport/types.ts';
import { AGENT_CODEC, AgentParticipant } from '../../transports/webrtc/agent-participant.ts';
import { requireMediasoup, type ms } from '../../transports/webrtc/mediasoup.ts';
import { SenderPool } from '../../transports/webrtc/sender-thread.ts';

let worker: ms.Worker;
let router: ms.Router;
const senders = new SenderPool();

before(async () => {
  const mediasoup = await requireMediasoup();
  worker = await mediasoup.createWorker({ logLevel: 'none' });
  router = await worker.createRouter({ mediaCodecs: [{ kind: 'audio', mimeType: 'audio/opus', clockRate: 48_000, channels: 2 }] });
});
after(async () => {
  worker?.close();
  await senders.close();
});

/** A caller's microphone in the router: a producer on a DirectTransport of its own. */
async function callerProducer(): Promise<ms.Producer> {
  const direct = await router.createDirectTransport();
  return direct.produce({ kind: 'audio', rtpParameters: { codecs: [{ ...AGENT_CODEC, parameters: { ...AGENT_CODEC.parameters } }], encodings: [{ ssrc: 4242 }] } });
}

test('the agent participant holds its events until the session subscribes: a caller who leaves first still hangs the call up', async () => {
  const producer = await callerProducer();
  const agent = await AgentParticipant.join(router, producer.id, { callId: 'c1', provider: 'webrtc', parameters: {} }, senders, () => {});
  // The caller goes before the session has subscribed (it is still opening its sockets).
  producer.close();
  await new Promise((r) => setTimeout(r, 200));
  // The session, and an observer that subscribes after it, each get the hang-up.
  const session = firstValueFrom(agent.events$);
  const observer = firstValueFrom(agent.events$);
  assert.deepEqual(await session, { type: 'hangup', reason: 'caller left' });
  assert.deepEqual(await observer, { type: 'hangup', reason: 'caller left' });
  // The caller's audio ended as well, and closing completes the events.
  await firstValueFrom(agent.audio$.pipe(toArray()));
  const all: Promise<TransportEvent[]> = firstValueFrom(agent.events$.pipe(toArray()));
  await agent.close();
  assert.deepEqual(await all, [{ type: 'hangup', reason: 'caller left' }], 'one hang-up, however often the call ends');
});

test('events after the session subscribed flow live, once', async () => {
  const producer = await callerProducer();
  const agent = await AgentParticipant.join(router, producer.id, { callId: 'c2', provider: 'webrtc', parameters: {} }, senders, () => {});
  const seen: TransportEvent[] = [];
  agent.events$.subscribe((e) => seen.push(e));
  agent.leave('a supervisor took the call over');
  assert.deepEqual(seen, [{ type: 'hangup', reason: 'a supervisor took the call over' }]);
  await agent.close();
  producer.close();
  assert.equal(seen.length, 1);
});
