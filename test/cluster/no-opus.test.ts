/**
 * `hiwar serve` on a machine where the native Opus codec does not load: WebRTC is off with one
 * line saying why, and telephony is served, in cluster mode (REDIS_URL) as without it. Each server
 * is a real child process whose Opus binding is refused by test/helpers/no-opus.cjs.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { realClock } from '../../src/transport/clock.ts';
import { mapLimit, SIDE_BY_SIDE } from '../helpers/parallel.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { Deadline } from '../helpers/deadline.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { waitFor } from '../telephony/serve.ts';
import { pcmGateway } from './pcm-gateway.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const NO_OPUS = new URL('../helpers/no-opus.cjs', import.meta.url).pathname;

interface Served {
  child: ChildProcess;
  out: () => string;
  url?: string;
}

let redis: TestRedis;
const children: ChildProcess[] = [];

before(async () => {
  redis = await startRedis();
});

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis.stop();
});

/** `hiwar serve` on the embedded sandbox, Opus refused; resolves once it printed its summary or exited. */
async function serve(env: NodeJS.ProcessEnv): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--open'], {
    env: { ...process.env, HIWAR_API_KEY: '', HIWAR_LOG_LEVEL: 'warn', REDIS_URL: '', NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${NO_OPUS}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  await waitFor(() => /health: /.test(out) || child.exitCode !== null, 'hiwar serve to start (or exit)', 90_000, () => out);
  return { child, out: () => out, url: /hiwar serve: agent .* at (http:\/\/[\d.]+:\d+)/.exec(out)?.[1] };
}

async function waitForReady(url: string, name: string): Promise<void> {
  const give = new Deadline(60_000);
  let last = '';
  while (!give.expired) {
    const res = await fetch(`${url}/readyz`);
    if (res.status === 200) return;
    last = `${res.status} ${await res.text()}`;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`${name}: never ready (${last})`);
}

test('without a working Opus codec, hiwar serve says WebRTC is off and serves telephony, with and without REDIS_URL', async () => {
  const [cluster, single] = await mapLimit([{ REDIS_URL: redis.url }, {}], SIDE_BY_SIDE, serve);
  for (const [name, s] of [['cluster', cluster!], ['single', single!]] as const) {
    // A start-up crash would have ended the process before the summary (exit 1, a stack trace).
    assert.equal(s.child.exitCode, null, `${name}: hiwar serve exited:\n${s.out()}`);
    const off = s.out().split('\n').filter((l) => /WebRTC is off/.test(l));
    assert.equal(off.length, 1, `${name}: one line about WebRTC:\n${s.out()}`);
    assert.match(off[0]!, /^ {2}WebRTC is off: the Opus codec \(@discordjs\/opus\) did not load: Cannot find module .*opus\.node/);
    assert.doesNotMatch(s.out(), /\n\s+at |unhandled rejection/, `${name}: no stack trace, no stray rejection:\n${s.out()}`);
    // Ready once start-up is over (in cluster mode /readyz also says 503 while the event loop is
    // delayed, which a loaded machine may be after start-up too).
    await waitForReady(s.url!, name);
  }
  assert.match(cluster!.out(), /cluster: instance /);

  // Telephony works: a caller on each server hears the agent's greeting.
  const callers = [cluster!, single!].map((s, i) => new FarEnd(`${s.url!.replace('http', 'ws')}/telephony/pcm?rate=16000&call_id=no-opus-${i}`, pcmGateway(), realClock()));
  await Promise.all(callers.map((f) => f.start()));
  await waitFor(() => callers.every((f) => f.playedSamples > 16_000), 'both callers hear a second of the agent\'s greeting', 90_000, () => `${cluster!.out()}\n---\n${single!.out()}`);
  for (const f of callers) f.hangup();

  for (const s of [cluster!, single!]) {
    s.child.kill('SIGTERM');
    const [code] = await once(s.child, 'exit');
    assert.equal(code, 0, s.out());
  }
});
