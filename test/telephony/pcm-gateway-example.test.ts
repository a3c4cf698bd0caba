import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeWav, encodeWav } from '../../src/audio/wav.ts';
import WebSocket from 'ws';
import { createLogger } from '../../src/session/logger.ts';
import { runNode } from '../helpers/processes.ts';
import { pad, runSandbox, voiced, type Running } from '../helpers/sandbox.ts';
import { agentTurns, startServe, waitFor, type Served } from './serve.ts';

/**
 * examples/pcm-gateway/gateway.mjs, the reference gateway of docs/telephony.md's generic PCM
 * section, run as a user runs it (plain `node`, its own process, real-time pace on the wall
 * clock) against a server built as `hiwar serve` builds it, on the embedded sandbox.
 */
const GATEWAY = 'examples/pcm-gateway/gateway.mjs';

interface Summary {
  agentSeconds: number;
  marksEchoed: number;
  clears: number;
  linesSaid: number;
  linesAnswered: number;
  hangup: string | null;
}

describe('the reference PCM gateway', () => {
  let served: Served;
  let dir: string;
  /** What the telephony side logged at warn and above. */
  const warnings: { call?: string; msg: string }[] = [];
  before(async () => {
    // Real time: the gateway plays the agent's audio on the wall clock, as a phone would.
    served = await startServe({ speed: 1, logger: createLogger('warn', { write: (l: string) => void warnings.push(JSON.parse(l)) }) });
    dir = mkdtempSync(join(tmpdir(), 'hiwar-pcm-gw-'));
  });
  after(async () => {
    await served.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A caller line as a WAV file at `rate`. */
  const lineFile = (name: string, pcm: Int16Array, rate: number) => {
    const path = join(dir, name);
    writeFileSync(path, encodeWav(pad(pcm, rate, 0.2, 0.6), rate));
    return path;
  };
  /** The gateway as its own process, on a call of its own id (query parameters pass through). */
  const gateway = async (callId: string, args: string[]) => {
    // A loaded machine may take seconds over the first greeting, and between two sentences of a
    // reply: the caller waits for the greeting, and takes only a long silence for the agent's end.
    const r = await runNode([GATEWAY, '--url', `${served.url.replace(/^http/, 'ws')}/telephony/pcm?call_id=${callId}`, '--greeting-s', '60', '--pause-ms', '5000', ...args], {}, 180_000);
    assert.equal(r.code, 0, `gateway failed:\n${r.stdout}\n${r.stderr}`);
    const call = served.calls.find((c) => c.transport.call.callId === callId);
    assert.ok(call, 'the server took the call');
    return { summary: JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Summary, call };
  };

  for (const rate of [16000, 8000]) {
    it(`takes the caller's turn and answers it (${rate} Hz, marks echoed as played)`, async () => {
      // Voiced by the server's own sandbox: its closed-set recognizer knows what it voiced.
      const ask = lineFile(`ask-${rate}.wav`, await voiced(served.sandbox.client, 'كم رصيدي', rate), rate);
      const out = join(dir, `agent-${rate}.wav`);
      const { summary, call } = await gateway(`gw-${rate}`, ['--rate', String(rate), '--out', out, ask]);
      assert.ok(
        call.events.some((e) => e.type === 'user_turn' && e.text === 'كم رصيدي'),
        `the caller's turn was taken: ${JSON.stringify(call.events.filter((e) => e.type !== 'state' && e.type !== 'agent_chunk'))}`,
      );
      const turns = agentTurns(call);
      assert.ok(turns.length >= 2, 'the greeting and an answer');
      assert.match(turns[1]!.text, /رصيد/, 'the balance answer');
      assert.equal(turns[1]!.heardText, turns[1]!.text, 'the marks the gateway echoed say the whole answer was played');
      assert.equal(summary.linesSaid, 1);
      assert.equal(summary.linesAnswered, 1, 'agent audio came back after the caller spoke');
      assert.ok(summary.marksEchoed > 0);
      assert.ok(!warnings.some((w) => w.call === `gw-${rate}`), 'no warning about marks: they were echoed');
      const wav = decodeWav(readFileSync(out));
      assert.equal(wav.sampleRate, rate);
      assert.ok(wav.samples.length / rate > 3, `the greeting and the answer were played (${wav.samples.length / rate} s)`);
    });
  }

  it('speech the sandbox does not know takes no turn, and the session says why', async () => {
    // Voiced by another sandbox: the server's recognizer never heard it.
    let other: Running | undefined = await runSandbox();
    let pcm: Int16Array;
    try {
      pcm = await voiced(other.client, 'السماء صافية اليوم', 16000);
    } finally {
      await other.close();
      other = undefined;
    }
    const { summary, call } = await gateway('gw-unknown', ['--answer-s', '4', '--out', join(dir, 'unknown.wav'), lineFile('unknown.wav', pcm, 16000)]);
    assert.equal(summary.linesSaid, 1);
    assert.equal(summary.linesAnswered, 0, 'no answer');
    assert.ok(!call.events.some((e) => e.type === 'user_turn'), 'no turn');
    assert.ok(
      call.events.some((e) => e.type === 'notice' && /caller speech without words: speech not recognized/.test(e.message)),
      'the notice names the cause',
    );
  });

  it('a gateway that echoes no marks (and did not say marks=0) is told so in the server log', async () => {
    const ws = new WebSocket(`${served.url.replace(/^http/, 'ws')}/telephony/pcm?call_id=gw-deaf`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    // A line that sends audio and reads nothing back, as a first attempt often is.
    const silence = Buffer.alloc(640);
    const sender = setInterval(() => ws.send(silence), 20);
    try {
      await waitFor(() => warnings.some((w) => w.call === 'gw-deaf'), 'the warning about marks');
    } finally {
      clearInterval(sender);
      ws.close();
    }
    assert.match(warnings.find((w) => w.call === 'gw-deaf')!.msg, /echoes none of the playout marks.*connects with marks=0/);
  });

  it('says why the server refused the call: a missing token on localhost too, a spent one, a full or draining server', async () => {
    const line = lineFile('refused.wav', new Int16Array(1600), 16000);
    for (const [status, why] of [
      [401, /HTTP 401 \(the media token is missing or wrong: give the server's own \(its --media-token or HIWAR_MEDIA_TOKEN\) with --token or HIWAR_MEDIA_TOKEN, on localhost too\)/],
      [403, /HTTP 403 \(the token was already used for a call\)/],
      [503, /HTTP 503 \(the server is full \(--max-calls\) or draining\)/],
    ] as const) {
      // A server on loopback that refuses every upgrade with `status`, as hiwar serve does.
      const refusing = createServer().on('upgrade', (_req, socket) => socket.end(`HTTP/1.1 ${status} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`));
      await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', () => r()));
      try {
        const r = await runNode([GATEWAY, '--url', `ws://127.0.0.1:${(refusing.address() as AddressInfo).port}/telephony/pcm`, line], { HIWAR_MEDIA_TOKEN: '' });
        assert.equal(r.code, 1);
        assert.match(r.stderr, why);
        // It was on localhost: the old message said a token was needed only beyond it.
        assert.doesNotMatch(r.stderr, /beyond localhost/);
      } finally {
        await new Promise<void>((r) => refusing.close(() => r()));
      }
    }
  });

  it('answers a bad command line in one line', async () => {
    const r = await runNode([GATEWAY, '--url', 'ws://127.0.0.1:1/telephony/pcm', '--rate', '11025', 'x.wav']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'pcm-gateway: --rate must be 8000, 16000, 24000 or 48000, got 11025\n');
  });
});
