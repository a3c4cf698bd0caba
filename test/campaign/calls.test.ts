/**
 * A campaign end to end through Twilio, as `hiwar campaign start` runs it without Redis, and
 * queued on Redis for `hiwar campaign worker` (BullMQ): Twilio's REST API faked from its
 * documentation, every answered call's media stream connected back to the command's server with a
 * scripted far end (test/campaign/campaign-calls.ts). The other platforms:
 * test/campaign/platforms.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRedis } from '../helpers/redis.ts';
import { assertCampaign, campaignFixture, runCampaign, type PhoneBook } from './campaign-calls.ts';

delete process.env.HIWAR_API_KEY;

const PHONES: PhoneBook = {
  '+966500000301': { name: 'خالد', by: ['person'] },
  '+966500000302': { name: 'سعاد', by: ['voicemail'] },
  '+966500000303': { name: 'ماجد', by: ['carrier', 'person'] },
  '+966500000304': { name: 'هند', by: ['no-answer', 'person'] },
  '+966500000305': { name: 'فهد', by: ['busy'] },
};
const DNC = '+966500000306';
const EXPECTED = {
  '+966500000301': ['1:completed:human:true'],
  // The voicemail got the agent's message after the beep; a voicemail is not retried (not in --retry-on's default).
  '+966500000302': ['1:machine-voicemail:machine-voicemail:true'],
  // The carrier's "switched off" is retried, and the person answers the retry.
  '+966500000303': ['1:machine-unavailable:machine-unavailable:false', '2:completed:human:true'],
  '+966500000304': ['1:no-answer:-:false', '2:completed:human:true'],
  '+966500000305': ['1:busy:-:false', '2:busy:-:false', '3:busy:-:true'],
  [DNC]: ['0:do-not-call:-:true'],
};

const fixture = campaignFixture();

test('hiwar campaign start in process: a person, a voicemail, a carrier announcement, no answer and busy, through Twilio with media streamed back; outcomes and who answered per contact (a person is human: the detector times frames by the stream, so a loaded machine cannot make them uncertain), retries per the rules, the person greeted by name', async () => {
  const run = await runCampaign({ sandbox: fixture.sandbox, audio: fixture.audio, platform: 'twilio', phones: PHONES, dnc: DNC, mode: 'in-process', concurrency: 2 });
  assertCampaign(run, PHONES, EXPECTED, DNC);
  const khaled = run.all.find((r) => r.number === '+966500000301')!;
  assert.equal(khaled.duration_s, '20', "the platform's duration");
});

test('the same campaign on Redis: hiwar campaign start enqueues it, hiwar campaign worker (BullMQ) places the calls; the calls\' records in Redis carry who answered', async () => {
  const redis = await startRedis();
  try {
    const run = await runCampaign({ sandbox: fixture.sandbox, audio: fixture.audio, platform: 'twilio', phones: PHONES, dnc: DNC, mode: 'bullmq', redisUrl: redis.url, concurrency: 2 });
    assertCampaign(run, PHONES, EXPECTED, DNC);
  } finally {
    await redis.stop();
  }
});
