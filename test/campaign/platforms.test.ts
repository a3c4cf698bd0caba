/**
 * The campaign end to end through Telnyx, Plivo and Vonage: each platform's REST API faked from
 * its documentation (request and response shapes, signed status callbacks), each answered call's
 * media on that platform's own protocol (Telnyx's and Plivo's JSON media events at 8 kHz μ-law,
 * Vonage's binary 16 kHz L16 frames) to the command's server (test/campaign/campaign-calls.ts).
 * A smaller list than Twilio's (test/campaign/calls.test.ts), all real calls: a person, a
 * voicemail with its beep, and a busy line retried by the rules.
 */
import { test } from 'node:test';
import { assertCampaign, campaignFixture, runCampaign, type PhoneBook } from './campaign-calls.ts';

delete process.env.HIWAR_API_KEY;

const PHONES: PhoneBook = {
  '+966500000401': { name: 'خالد', by: ['person'] },
  '+966500000402': { name: 'سعاد', by: ['voicemail'] },
  '+966500000403': { name: 'فهد', by: ['busy'] },
};
const EXPECTED = {
  '+966500000401': ['1:completed:human:true'],
  '+966500000402': ['1:machine-voicemail:machine-voicemail:true'],
  '+966500000403': ['1:busy:-:false', '2:busy:-:false', '3:busy:-:true'],
};

const fixture = campaignFixture();

for (const platform of ['telnyx', 'plivo', 'vonage'] as const) {
  test(`hiwar campaign start through ${platform}: a person greeted by name, a voicemail given the message after its beep, a busy line retried; each dialled once per attempt`, async () => {
    const run = await runCampaign({ sandbox: fixture.sandbox, audio: fixture.audio, platform, phones: PHONES, mode: 'in-process', concurrency: 3 });
    assertCampaign(run, PHONES, EXPECTED);
  });
}
