/**
 * `hiwar serve --workers 2` as a real process tree (a primary and two workers) against a sandbox
 * in this process: calls over the shared HTTP port (the generic pcm media stream) and the shared
 * AudioSocket TCP port, the machine's call limit across workers, a killed worker, and a drain.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { freePort } from '../helpers/ports.ts';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { realClock } from '../../src/transport/clock.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { pcmGateway } from '../cluster/pcm-gateway.ts';
import { AudioSocketFarEnd } from '../telephony/audiosocket-far-end.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { twilioProtocol } from '../telephony/twilio-protocol.ts';
import { twilioSignature } from '../../transports/telephony/twilio.ts';
import { waitFor } from '../telephony/serve.ts';
import { Deadline, within } from '../helpers/deadline.ts';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const MAX_CALLS = 3;

interface Serve {
  child: ChildProcess;
  url: string;
  audioSocketPort: number;
  out: () => string;
  /** The worker (1, 2) that logged "call started" for each call id. */
  workerOf: (callId: string) => number | undefined;
  /** The pid of worker 1 or 2 at start. */
  pidOfWorker: (index: number) => number;
}

let sandbox: Running;
const hangups: (() => void)[] = [];
const children: ChildProcess[] = [];

const TWILIO = 'twilio-auth-token-of-the-test';
const CALLS_SECRET = 'calls-view-secret-of-the-test';

async function serve(o: { open?: boolean; workers?: number; args?: string[] } = {}): Promise<Serve> {
  const workers = o.workers ?? 2;
  const audioSocketPort = await freePort();
  const env = { ...process.env, HIWAR_LOG_FORMAT: 'json', HIWAR_LOG_LEVEL: 'info', HIWAR_API_KEY: sandbox.key, HIWAR_BASE_URL: sandbox.sandbox.url, TWILIO_AUTH_TOKEN: TWILIO, HIWAR_MEDIA_SECRET: '', HIWAR_CALLS_SECRET: CALLS_SECRET };
  const open = o.open ?? true ? ['--open'] : [];
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...open, '--workers', String(workers), ...(o.args ?? []), '--max-calls', String(MAX_CALLS), '--audiosocket-port', String(audioSocketPort)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  await waitFor(() => /workers: \d+ process/.test(out) || child.exitCode !== null, `${workers} worker(s) to start`, 90_000, () => out + err);
  assert.equal(child.exitCode, null, `serve exited:\n${out}\n${err}`);
  const url = /at (http:\/\/[\d.]+:\d+)/.exec(out)![1]!;
  const workerOf = (callId: string) => {
    // HIWAR_LOG_FORMAT=json: pino's lines go to stdout.
    for (const line of `${out}\n${err}`.split('\n')) {
      if (!line.startsWith('{')) continue;
      const r = JSON.parse(line) as { msg?: string; call?: string; worker?: number };
      if (r.msg === 'call started' && r.call === callId) return r.worker;
    }
    return undefined;
  };
  const pidOfWorker = (index: number) => Number(new RegExp(`worker ${index} pid (\\d+)`).exec(out)![1]);
  return { child, url, audioSocketPort, out: () => `${out}\n${err}`, workerOf, pidOfWorker };
}

function pcmCall(s: Serve, id: string): FarEnd {
  const far = new FarEnd(`${s.url.replace('http', 'ws')}/telephony/pcm?rate=16000&call_id=${id}`, pcmGateway(), realClock());
  hangups.push(() => far.vanish());
  void far.start().catch(() => {});
  return far;
}

function audioSocketCall(s: Serve): AudioSocketFarEnd {
  const far = new AudioSocketFarEnd(s.audioSocketPort, randomUUID(), realClock());
  hangups.push(() => far.vanish());
  void far.start().catch(() => {});
  return far;
}

const ready = async (s: Serve) => {
  const res = await fetch(`${s.url}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; machineCalls: number; worker: number } };
};

async function until(cond: () => Promise<boolean>, what: string, explain: () => string, ms = 90_000): Promise<void> {
  const give = new Deadline(ms);
  while (!(await cond().catch(() => false))) {
    if (give.expired) throw new Error(`timed out: ${what}\n${explain().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const heard = (f: FarEnd) => f.agentAudio.length > 0;

/** A running process's command line, as the kernel holds it. */
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

/** The exit code, or a failure with what the process printed if it does not exit in time. */
async function exitOf(s: Serve, ms = 120_000): Promise<number | null> {
  const [code] = (await within(once(s.child, 'exit'), ms, () => `serve did not exit within ${ms} ms of the machine's time\n${s.out().slice(-3000)}`)) as [number | null];
  return code;
}

before(async () => {
  sandbox = await runSandbox();
});

after(async () => {
  for (const h of hangups) h();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sandbox?.close();
});

describe('hiwar serve --workers 2', () => {
  it('takes telephony and AudioSocket calls on the shared ports in both workers; refuses the call past --max-calls across them; a killed worker ends only its own call and comes back', async () => {
    const s = await serve();
    assert.equal((s.out().match(/hiwar serve: agent/g) ?? []).length, 1, 'one banner, not one per worker');
    // --gc auto: two workers fill a machine of two CPUs or fewer, and then collect on their own thread.
    const single = availableParallelism() <= 2;
    for (const w of [1, 2]) assert.equal(cmdline(s.pidOfWorker(w)).includes('--single-threaded-gc'), single, `worker ${w}'s command line: ${cmdline(s.pidOfWorker(w)).join(' ')}`);
    assert.match(s.out(), single ? /single-threaded garbage collection/ : /parallel garbage collection/);
    // Two media connections in a row on the HTTP port: node:cluster hands them to the workers in turn.
    const a = pcmCall(s, 'w-a');
    const c = pcmCall(s, 'w-c');
    const b = audioSocketCall(s);
    await waitFor(() => heard(a) && heard(c) && b.played > 0, 'the three callers hear the agent', 90_000, s.out);
    const pids = new Map([['w-a', s.workerOf('w-a')], ['w-c', s.workerOf('w-c')], [b.uuid, s.workerOf(b.uuid)]]);
    assert.ok([...pids.values()].every((p) => p !== undefined), `every call logged its start: ${JSON.stringify([...pids])}\n${s.out().slice(-3000)}`);
    assert.equal(new Set(pids.values()).size, 2, `both workers hold calls: ${JSON.stringify([...pids])}`);
    await until(async () => (await ready(s)).body.machineCalls === MAX_CALLS, 'the workers know the machine holds three calls', s.out);
    const full = await ready(s);
    assert.equal(full.status, 503);
    assert.equal(full.body.status, 'full');
    // /metrics from whichever worker answers counts the machine's calls, not its own: two scrapes
    // on fresh connections reach both workers in turn (node:cluster), and each reads three.
    for (let i = 0; i < 2; i++) {
      const text = await (await fetch(`${s.url}/metrics`, { headers: { connection: 'close' } })).text();
      const active = [...text.matchAll(/^hiwar_active_calls\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
      assert.equal(active, MAX_CALLS, `the machine's active calls in /metrics:\n${text.split('\n').filter((l) => l.startsWith('hiwar_active_calls')).join('\n')}`);
      // The live calls view from either worker lists every call of the machine, with its worker.
      const res = await fetch(`${s.url}/calls/live?format=json`, { headers: { connection: 'close', authorization: `Bearer ${CALLS_SECRET}` } });
      assert.equal(res.status, 200);
      const live = (await res.json()) as { calls: { callId: string; instance?: string }[] };
      const listed = new Map(live.calls.map((c) => [c.callId, c.instance]));
      for (const [id, w] of pids) assert.equal(listed.get(id), `worker ${w}`, `${id} listed with its worker: ${JSON.stringify(live.calls)}`);
    }

    // The fourth call, whichever worker takes it, is refused: hung up without a word of the agent.
    const d = pcmCall(s, 'w-d');
    let giveUp: NodeJS.Timeout | undefined;
    const closed = await Promise.race([d.closed.then(() => true), new Promise<false>((r) => (giveUp = setTimeout(() => r(false), 60_000)))]);
    clearTimeout(giveUp);
    assert.ok(closed, 'the call past the limit is closed');
    assert.equal(d.agentAudio.length, 0, 'the refused caller heard nothing');

    // Kill the worker of call a: only the calls it held end; the other worker's call goes on.
    const victim = pids.get('w-a')!;
    const others = [...pids].filter(([, p]) => p !== victim).map(([id]) => id);
    process.kill(s.pidOfWorker(victim), 'SIGKILL');
    await a.closed;
    await waitFor(() => /worker \d restarted/.test(s.out()), 'the killed worker is restarted', 90_000, s.out);
    const survivor = others.includes('w-c') ? c : undefined;
    const before = survivor ? survivor.agentAudio.length : b.played;
    assert.ok(survivor ? survivor.ws.readyState === survivor.ws.OPEN : !b.socket.destroyed, "the other worker's call is still up");
    await until(async () => (await ready(s)).body.machineCalls === others.length, "the killed worker's calls are given back", s.out);
    // The survivor's call still runs: the agent answers what it says.
    if (survivor) {
      await survivor.say(new Int16Array(16000));
      assert.equal(survivor.ws.readyState, survivor.ws.OPEN);
    } else assert.ok(b.played >= before && !b.socket.destroyed);
    // A new call is taken again, whichever worker (the restarted one included) gets it.
    const e = pcmCall(s, 'w-e');
    await waitFor(() => heard(e), 'a new call is served after the restart', 90_000, s.out);
    for (const h of hangups) h();
    s.child.kill('SIGTERM');
    assert.equal(await exitOf(s), 0, s.out());
  });

  it('--gc single with one process: the server runs in a lone worker started with the flag, and takes a call; --gc parallel with two workers leaves the flag out', async () => {
    const s = await serve({ workers: 1, args: ['--gc', 'single'] });
    assert.match(s.out(), /workers: 1 process behind .*single-threaded garbage collection/);
    assert.ok(cmdline(s.pidOfWorker(1)).includes('--single-threaded-gc'), cmdline(s.pidOfWorker(1)).join(' '));
    assert.ok(!cmdline(s.child.pid!).includes('--single-threaded-gc'), 'the primary itself was started without it');
    const a = pcmCall(s, 'gc-a');
    await waitFor(() => heard(a), 'the caller hears the agent', 90_000, s.out);
    a.hangup();
    s.child.kill('SIGTERM');
    assert.equal(await exitOf(s), 0, s.out());
    const p = await serve({ args: ['--gc', 'parallel'] });
    for (const w of [1, 2]) assert.ok(!cmdline(p.pidOfWorker(w)).includes('--single-threaded-gc'), cmdline(p.pidOfWorker(w)).join(' '));
    p.child.kill('SIGTERM');
    assert.equal(await exitOf(p), 0, p.out());
  });

  it('drains on SIGTERM: every worker stops taking calls, the call in progress finishes, then the primary exits', async () => {
    const s = await serve();
    const a = pcmCall(s, 'd-a');
    await waitFor(() => heard(a), 'the caller hears the agent', 90_000, s.out);
    s.child.kill('SIGTERM');
    await until(async () => (await ready(s)).body.status === 'draining', 'not ready: draining', s.out);
    // Both workers drain: two /readyz in a row reach both (node:cluster hands connections in turn).
    for (let i = 0; i < 2; i++) assert.equal((await ready(s)).status, 503);
    assert.equal(s.child.exitCode, null, 'the primary waits for the call');
    assert.equal(a.ws.readyState, a.ws.OPEN, 'the call in progress is still up');
    a.hangup();
    assert.equal(await exitOf(s), 0, s.out());
    assert.match(s.out(), /SIGTERM: draining 2 workers/);
    assert.match(s.out(), /drained; bye/);
  });

  it('Twilio calls: a media token minted by the worker that answered the webhook opens the stream on the other worker, once on the machine', async () => {
    const s = await serve({ open: false });
    // The webhook and a /readyz on one kept-alive socket: the worker that minted the stream's token.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const request = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(`${s.url}${path}`, { method, agent, headers }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const answer = async (callSid: string) => {
      const form = new URLSearchParams({ CallSid: callSid }).toString();
      const res = await request('POST', '/telephony/twilio', form, { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(TWILIO, `${s.url}/telephony/twilio`, { CallSid: callSid }) });
      assert.equal(res.status, 200, res.text);
      const signer = (JSON.parse((await request('GET', '/readyz')).text) as { worker: number }).worker;
      return { url: (/<Stream url="([^"]+)"/.exec(res.text)?.[1] ?? '').replace(/&amp;/g, '&'), signer };
    };
    // Connections go to the workers in turn: within a few calls a stream reaches the other worker.
    let crossed: { url: string; far: FarEnd } | undefined;
    for (let i = 1; i <= 6 && !crossed; i++) {
      const callSid = `CA${i}`;
      const { url, signer } = await answer(callSid);
      const far = new FarEnd(url, twilioProtocol(callSid), realClock());
      hangups.push(() => far.vanish());
      await far.start();
      await waitFor(() => heard(far), `Twilio caller ${callSid} hears the agent`, 90_000, s.out);
      if (s.workerOf(callSid) !== signer) crossed = { url, far };
      else {
        far.hangup();
        await far.closed;
      }
    }
    agent.destroy();
    assert.ok(crossed, 'a stream reached the worker that did not mint its token, and was taken');
    // Its stream URL again, on whichever worker: the token was spent on the machine.
    const replay = new FarEnd(crossed.url, twilioProtocol('CA-replay'), realClock());
    hangups.push(() => replay.vanish());
    const refused = await replay.start().then(
      () => false,
      (err: Error) => /refused: 403/.test(err.message),
    );
    assert.ok(refused, 'a replayed media token is refused');
    crossed.far.hangup();
    s.child.kill('SIGTERM');
    assert.equal(await exitOf(s), 0, s.out());
  });
});
