import { ReplyPlayout } from '../pipeline/playout.ts';
import type { ServiceClient } from '../service/client.ts';
import { runTimers } from '../service/run-time.ts';
import type { Agent } from '../session/agent.ts';
import { renderOutOfServiceLine } from '../session/prepare-fixed-lines.ts';
import { realClock, type Clock } from '../transport/clock.ts';
import { ResamplingOutput } from '../transport/resampling-output.ts';
import type { Transport } from '../transport/types.ts';

/** Longest wait for the line's playout after its audio, for a platform that acknowledges nothing. */
const SLACK_MS = 5000;

/**
 * Says `agent`'s out-of-service line to a caller whose session could not be made (the factory
 * threw): there is no session to say it, so the server does, from the same per-process cache the
 * sessions' fixed lines come from (rendered at start-up by `prepareLines`). Resolves true once the
 * line has been played (stopped after its length and 5 s more if the platform never says so),
 * false when there is no line; a line that cannot be rendered rejects, and the call manager logs it.
 */
export function failureLine(client: ServiceClient, agentOf: (transport: Transport) => Agent | undefined, clock: Clock = realClock()): (transport: Transport) => Promise<boolean> {
  return async (transport) => {
    const agent = agentOf(transport);
    if (!agent?.outOfServiceLine) return false;
    const line = agent.outOfServiceLine;
    const audio = await renderOutOfServiceLine(client, agent, clock);
    if (!audio.samples.length) return false;
    // The line is at the synthesis' rate; the transport's may differ (8 kHz telephony).
    const output = new ResamplingOutput(transport.output);
    await output.prepare(audio.sampleRate);
    const playout = new ReplyPlayout(output, clock);
    playout.beginSegment(line);
    playout.append(audio.samples, audio.sampleRate);
    playout.end();
    const seconds = audio.samples.length / audio.sampleRate;
    // Run time, as the project's other bounded waits: a stalled process does not cut the line short.
    let timer: unknown;
    const late = new Promise<'late'>((resolve) => (timer = runTimers.set(() => resolve('late'), seconds * 1000 + SLACK_MS)));
    const how = await Promise.race([playout.finished, late]);
    runTimers.clear(timer);
    if (how === 'late') await playout.stop();
    return true;
  };
}
