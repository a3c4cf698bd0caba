/** hiwar's four outbound platform clients with the test's keys, pointed at the fake platforms' port. */
import { plivoOutbound, telnyxOutbound, twilioOutbound, vonageOutbound } from '../../../transports/telephony/index.ts';
import type { TestKeys } from './fake-platforms.ts';

export const platformClients = (keys: TestKeys, baseUrl: string) => ({
  twilio: twilioOutbound({ ...keys.twilio, baseUrl }),
  telnyx: telnyxOutbound({ apiKey: keys.telnyx.apiKey, connectionId: keys.telnyx.connectionId, baseUrl }),
  plivo: plivoOutbound({ ...keys.plivo, baseUrl }),
  vonage: vonageOutbound({ applicationId: keys.vonage.applicationId, privateKey: keys.vonage.privateKey, baseUrl }),
});
