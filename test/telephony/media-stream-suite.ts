import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WireMessage } from '../../transports/telephony/provider.ts';
import { pad, voiced } from '../helpers/sandbox.ts';
import { assertVoiceStoppedAtCut, FarEnd, type PlatformProtocol } from './far-end.ts';
import { agentTurns, startServe, waitFor, type Served, type ServedCall } from './serve.ts';

/** The static media token the suite's server takes (`hiwar serve --media-token`). */
export const MEDIA_TOKEN = 'test-media-token-5f2a';

/** One platform's media stream, as the shared suite drives it. */
export interface StreamCase {
  /** Route name: `/telephony/<provider>`. */
  provider: string;
  /** Rate of the caller audio the platform streams. */
  rate: number;
  /** The platform's side for one call; `callId` is what the platform calls it. */
  protocol(callId: string): PlatformProtocol;
  /** Query parameters of the media URL besides the token (rate, call id…). */
  query?(callId: string): Record<string, string>;
  /** WebSocket subprotocols the platform asks for. */
  protocols?: string[];
  /** The platform acknowledges playout (marks); else the server reports from its send clock. */
  acknowledges: boolean;
  /** The platform gets an in-stream interrupt message on barge-in. */
  interrupts: boolean;
  /** The platform reports DTMF in-stream. */
  dtmf: boolean;
  /** Checks one agent audio message as the platform received it (size, codec). */
  checkAudio(pcm: Int16Array): void;
  /** Malformed messages of this platform's kind, for the junk test. */
  junk: WireMessage[];
  /** Runs only these tests (a variant of a platform already covered in full). @default all */
  only?: ('call' | 'barge-in' | 'junk' | 'token')[];
  /** Suite title suffix for a variant. */
  variant?: string;
  /**
   * The platform's calls come through a webhook (Exotel's dynamic endpoint): its media opens with
   * the per-call token the answer hands out, never with the static token.
   */
  perCallToken?: boolean;
}

/** A message or two the server sent that the far end (same process) has not read yet. */
const IN_FLIGHT_S = 0.3;

/** Speed of the scaled clock: the sandbox times speech on audio, not the wall. */
const SPEED = 3;

/**
 * The end-to-end checks every media-stream platform passes against an in-process `hiwar serve`:
 * a far end speaking the platform's exact protocol over a real WebSocket, streaming Arabic speech
 * voiced by the sandbox in the platform's codec at (scaled) real-time pace.
 */
export function mediaStreamSuite(c: StreamCase): void {
  describe(`${c.provider}${c.variant ? ` (${c.variant})` : ''} media stream against hiwar serve`, () => {
    // A variant registers only its own tests (nothing shows as skipped).
    const run = (name: NonNullable<StreamCase['only']>[number]) => (title: string, fn: () => Promise<void>) => {
      if (!c.only || c.only.includes(name)) test(title, fn);
    };
    let s: Served;
    let balance: Int16Array;
    let lostCard: Int16Array;
    let n = 0;
    before(async () => {
      // Bound as if beyond localhost: media URLs need the token.
      s = await startServe({ speed: SPEED, open: false, mediaToken: MEDIA_TOKEN });
      const line = async (text: string) => pad(await voiced(s.sandbox.client, text, c.rate), c.rate, 0.2, 1.0);
      [balance, lostCard] = await Promise.all([line('كم رصيدي'), line('بطاقتي ضاعت')]);
    });
    after(() => s.close());

    /** `token` null: no token at all. */
    const urlFor = (callId: string, token: string | null = MEDIA_TOKEN) => {
      const q = new URLSearchParams({ ...c.query?.(callId), ...(token === null ? {} : { token }) });
      return `${s.url.replace(/^http/, 'ws')}/telephony/${c.provider}?${q}`;
    };
    /** The URL a real call connects to: with the static token, or the per-call one a webhook answer would hand out. */
    const dialUrl = (callId: string) =>
      c.perCallToken ? `${s.url.replace(/^http/, 'ws')}/telephony/${c.provider}/stream/${s.tokens.mint(c.provider, callId)}?${new URLSearchParams(c.query?.(callId))}` : urlFor(callId);

    async function dial(): Promise<{ far: FarEnd; call: ServedCall; callId: string }> {
      const callId = `${c.provider}-call-${++n}`;
      const far = new FarEnd(dialUrl(callId), c.protocol(callId), s.clock, { protocols: c.protocols });
      await far.start();
      await waitFor(() => s.calls.some((x) => x.transport.call.callId === callId), `call ${callId} started`);
      return { far, call: s.calls.find((x) => x.transport.call.callId === callId)!, callId };
    }

    /**
     * What the server may count as heard: with acknowledgements, never more than the far end
     * played; on the send clock, never more than the far end received (the far end's own playout
     * loop lags under load on a scaled clock, so it is no yardstick). Counting what was written
     * but dropped at a barge-in would be seconds over either.
     */
    const heardLimit = (far: FarEnd) =>
      c.acknowledges ? far.played + 0.001 : far.said.reduce((n, x) => n + (x.type === 'audio' ? x.pcm.length : 0), 0) / c.rate + IN_FLIGHT_S;

    run('call')('a call: the agent answers in the platform format, playout is reported, DTMF reaches the agent, the caller hangs up', async () => {
      const { far, call } = await dial();
      assert.equal(call.transport.call.provider, c.provider);
      await waitFor(() => agentTurns(call).length >= 1, 'greeting played');
      await far.say(balance);
      await waitFor(() => agentTurns(call).length >= 2, 'the answer');
      assert.match(agentTurns(call)[1]!.text, /رصيد/);
      const media = far.said.filter((x): x is { type: 'audio'; pcm: Int16Array } => x.type === 'audio');
      assert.ok(media.length > 10, `agent audio came as the platform's media messages (${media.length})`);
      for (const m of media) c.checkAudio(m.pcm);
      if (c.acknowledges) assert.ok(far.said.some((x) => x.type === 'mark'), 'playout marks were sent');
      else assert.ok(!far.said.some((x) => x.type === 'mark'), 'no marks on a platform that acknowledges none');
      const loud = far.agentAudio.filter((f) => f.some((v) => Math.abs(v) > 2000)).length;
      assert.ok(loud > 20, 'the agent audio is speech, not silence');
      await waitFor(() => call.transport.output.position() > 1, 'playout reported');
      assert.ok(call.transport.output.position() <= heardLimit(far), `heard ${call.transport.output.position()} s, played ${far.played} s`);
      if (c.dtmf) {
        far.dtmf('5');
        await waitFor(() => call.transportEvents.some((e) => e.type === 'dtmf' && e.digit === '5'), 'DTMF reached the call');
      }
      far.hangup();
      await waitFor(() => call.report !== undefined && s.server.calls.active === 0, 'the call ended');
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      assert.match(metrics, new RegExp(`hiwar_calls_total\\{provider="${c.provider}",outcome="caller-hangup"\\} 1`));
    });

    run('barge-in')(`barge-in: ${c.interrupts ? "the platform's interrupt message" : 'sending stops'}, the history keeps only what was heard`, async () => {
      const { far, call } = await dial();
      await waitFor(() => agentTurns(call).length >= 1, 'greeting played');
      void far.say(lostCard);
      await waitFor(() => call.events.some((e) => e.type === 'agent_chunk' && /بطاقتك/.test(e.text)), 'the long answer started');
      const start = far.played;
      await waitFor(() => far.played > start + 1.5, 'the caller heard part of it');
      await far.say(balance);
      await waitFor(() => agentTurns(call).some((t) => t.interrupted), 'the answer was cut off');
      if (c.interrupts) await assertVoiceStoppedAtCut(far);
      else assert.equal(far.clears, 0);
      const cut = agentTurns(call).find((t) => t.interrupted)!;
      assert.ok(cut.heardText.length > 0 && cut.heardText.length < cut.text.length, `heard "${cut.heardText}" of "${cut.text}"`);
      assert.ok(cut.text.startsWith(cut.heardText));
      assert.ok(call.transport.output.position() <= heardLimit(far), 'nothing counted as heard that the platform did not play');
      await waitFor(() => agentTurns(call).some((t) => /رصيد/.test(t.text)), 'the new question answered');
      far.hangup();
      await waitFor(() => s.server.calls.active === 0, 'the call ended');
    });

    run('junk')('malformed, duplicated and out-of-order frames leave the server healthy; a caller vanishing mid-reply frees the call', async () => {
      const { far, call } = await dial();
      for (const m of c.junk) far.send(m);
      await waitFor(() => far.seq > 10, 'some audio sent');
      const frame = new Int16Array(c.rate / 50);
      far.send(far.proto.audio(frame, far.seq)); // the last frame again
      far.send(far.proto.audio(frame, far.seq - 5)); // a frame long overtaken
      await waitFor(() => agentTurns(call).length >= 1, 'greeting played despite the junk');
      assert.ok(call.transport.stats.invalid >= c.junk.length, `invalid counted: ${call.transport.stats.invalid} of ${c.junk.length}`);
      assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
      void far.say(lostCard);
      await waitFor(() => call.events.some((e) => e.type === 'agent_chunk' && /بطاقتك/.test(e.text)), 'the reply started');
      const heard = far.played;
      await waitFor(() => far.played > heard + 0.5, 'the reply is playing');
      far.vanish();
      await waitFor(() => call.report !== undefined && s.server.calls.active === 0, 'the call was freed');
      await waitFor(() => s.connections() === 0, 'no socket left');
      assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
    });

    run('token')(`a missing or wrong token${c.perCallToken ? ', or the static one,' : ''} is refused before any call starts`, async () => {
      const before = s.calls.length;
      for (const token of [null, 'wrong-token', '', ...(c.perCallToken ? [MEDIA_TOKEN] : [])]) {
        const far = new FarEnd(urlFor('intruder', token), c.protocol('intruder'), s.clock, { protocols: c.protocols });
        await assert.rejects(far.start(), /refused: 401/);
      }
      assert.equal(s.calls.length, before);
    });
  });
}
