/**
 * jambonz's mod_audio_fork plays streamed agent audio in batches: what it is sent waits in a
 * pre-buffer until the pre-buffer holds a threshold of samples (the fixture `playout`, from the
 * module's source). These tests run hiwar's output for a jambonz call into a model of that rule
 * with the fixture's thresholds: the end of a reply must not stay held, and a barge-in must not
 * leave the interrupted reply's held part in front of the next reply.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallHost } from '../../src/server/types.ts';
import { createLogger } from '../../src/session/logger.ts';
import { VirtualClock } from '../../src/transport/clock.ts';
import type { Transport } from '../../src/transport/types.ts';
import { MediaConnection } from '../../transports/telephony/connection.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallTokens } from '../../src/server/tokens.ts';
import { jambonz, jambonzOptionsFromEnv, jambonzProvider, JAMBONZ_DEFAULTS } from '../../transports/telephony/jambonz.ts';
import { telephonyPlugin } from '../../transports/telephony/index.ts';
import type { TelephonyProvider } from '../../transports/telephony/provider.ts';
import { MediaStreamOutput } from '../../transports/telephony/media-output.ts';
import type { WireMessage } from '../../transports/telephony/provider.ts';
import { Deadline } from '../helpers/deadline.ts';
import { platformFixture } from './fixture-files.ts';
import { startOf } from './wire.ts';

const fixture = platformFixture('jambonz');
const { first, then } = fixture.playout.preBufferSamples as { first: number; then: number };

/** The module's pre-buffer and playout buffer, as `processIncomingBinary` and `killAudio` treat them. */
class Module {
  preBuffer: number[] = [];
  threshold = first;
  /** Samples moved to the playout buffer (what the caller hears), in order; a killAudio empties what is not yet played. */
  playout: number[] = [];
  heard: number[] = [];
  /** What came, in order: `a` a message with agent audio, `s` silence only, `m` a mark. */
  log = '';

  receive(m: WireMessage): void {
    if ('text' in m) {
      if (JSON.parse(m.text).type === 'mark') this.log += 'm';
      if (JSON.parse(m.text).type === 'killAudio') this.playout = [];
      return;
    }
    const b = m.binary;
    const samples = new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    this.log += samples.some((s) => s !== 0) ? 'a' : 's';
    this.preBuffer.push(...samples);
    if (this.preBuffer.length < this.threshold) return;
    this.threshold = then;
    this.playout.push(...this.preBuffer.splice(0));
  }

  /** The channel's media frames play what the playout buffer holds. */
  play(): void {
    this.heard.push(...this.playout.splice(0));
  }
}

function jambonzCall(clock: VirtualClock) {
  const conn = jambonz.open({ url: new URL('ws://h/telephony/jambonz'), headers: {} });
  const start = startOf(conn.parse({ text: JSON.stringify(fixture.fromPlatform.callAttributes.message) }));
  const module = new Module();
  const out = new MediaStreamOutput(start.output!, conn, { send: (m) => module.receive(m), close: () => {} }, { clock });
  return { out, module };
}

const reply = (value: number, ms: number) => ({ samples: new Int16Array((8000 * ms) / 1000).fill(value), sampleRate: 8000, time: 0 });

test('jambonz: a reply is followed by silence enough that the module plays all of it, not only the batches it completed', async () => {
  const clock = new VirtualClock();
  const { out, module } = jambonzCall(clock);
  out.write(reply(1000, 300));
  void out.mark('reply-end');
  await clock.advance(1000);
  module.play();
  assert.equal(module.heard.filter((s) => s === 1000).length, 2400, 'every sample of the 300 ms reply reached the playout buffer');
  assert.equal(module.preBuffer.filter((s) => s !== 0).length, 0, 'nothing of it is held');
  assert.match(module.log, /^[am]*am(s+m?)+$/, 'a mark right after the reply\'s last audio (its end is reported played with it), then the silence');
  // A second reply, shorter than a batch, plays too.
  out.write(reply(2000, 30));
  void out.mark('reply-end');
  await clock.advance(1000);
  module.play();
  assert.equal(module.heard.filter((s) => s === 2000).length, 240);
  await out.close();
});

test('jambonz: a barge-in sends the held part of the reply into the buffer the killAudio empties, so the next reply starts with its own audio', async () => {
  const clock = new VirtualClock();
  const { out, module } = jambonzCall(clock);
  out.write(reply(1000, 2000));
  await clock.advance(250);
  module.play();
  const heardBefore = module.heard.length;
  assert.ok(heardBefore > 0 && module.preBuffer.some((s) => s === 1000), 'part of the first reply is held in the pre-buffer');
  await out.interrupt();
  module.play();
  assert.equal(module.heard.length, heardBefore, 'the interrupted reply is not heard after the clear');
  out.write(reply(2000, 300));
  void out.mark('reply-end');
  await clock.advance(1000);
  module.play();
  const next = module.heard.slice(heardBefore).filter((s) => s !== 0);
  assert.ok(next.length > 0 && next.every((s) => s === 2000), 'after the barge-in, only the next reply is heard');
  assert.equal(next.length, 2400);
  await out.close();
});

test('jambonz: a listen url with marks=0 gets no marks, its playout counted on the send clock; the provider asks for it with marks: false (the CLI: JAMBONZ_MARKS=0)', async () => {
  assert.equal(jambonz.open({ url: new URL('ws://h/telephony/jambonz?token=t&marks=0'), headers: {} }).mark, undefined);
  assert.deepEqual(JSON.parse((jambonz.open({ url: new URL('ws://h/telephony/jambonz?token=t'), headers: {} }).mark!('h1') as { text: string }).text), { type: 'mark', data: { name: 'h1' } });
  const ctx = { params: { call_sid: 'jz-1' }, streamUrl: () => 'wss://a/telephony/jambonz/stream/T', routeUrl: () => 'https://a/telephony/jambonz/after/R' };
  const urlOf = (p: TelephonyProvider) => JSON.parse((p.answer!('', ctx as never) as { body: string }).body)[0].url;
  assert.equal(urlOf(jambonzProvider({ marks: false })), 'wss://a/telephony/jambonz/stream/T?marks=0');
  assert.equal(urlOf(jambonzProvider()), 'wss://a/telephony/jambonz/stream/T');
  assert.equal(JAMBONZ_DEFAULTS.marks, true);
  // The provider's answer no longer reads the environment: only the commands map it onto the option.
  const saved = process.env.JAMBONZ_MARKS;
  process.env.JAMBONZ_MARKS = '0';
  try {
    assert.equal(urlOf(jambonz), 'wss://a/telephony/jambonz/stream/T', 'the environment is the CLI\'s default, not the provider\'s');
  } finally {
    if (saved === undefined) delete process.env.JAMBONZ_MARKS;
    else process.env.JAMBONZ_MARKS = saved;
  }
  assert.deepEqual(jambonzOptionsFromEnv({ JAMBONZ_MARKS: '0' }), { marks: false });
  assert.deepEqual(jambonzOptionsFromEnv({}), {});
  assert.throws(() => jambonzProvider({ marks: 'no' as never }), /jambonz: `marks` must be true or false, got "no"/);
  // Through the routes a server mounts: `telephonyRoutes({ jambonz })`.
  const host = { draining: false, publicUrl: () => 'http://127.0.0.1', runCall: async () => 'completed' } as unknown as CallHost;
  const plugin = telephonyPlugin(host, { tokens: new CallTokens(), open: true, jambonz: { marks: false } });
  const server = createServer((req, res) => void Promise.resolve(plugin.handleRequest!(req, res, new URL(req.url!, 'http://127.0.0.1'))).then((mine) => mine || res.writeHead(404).end()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/telephony/jambonz`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ call_sid: 'jz-2' }) });
    const [listen] = (await res.json()) as { url: string }[];
    assert.match(listen!.url, /\/telephony\/jambonz\/stream\/[^?]+\?marks=0$/);
  } finally {
    server.close();
  }
});

test('jambonz: a mod_audio_fork that reports no marks (an older release ignores them) is named in the server warning, with what to set', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('warn', { write: (l: string) => void lines.push(JSON.parse(l)) });
  let stop!: () => void;
  const host = {
    draining: false,
    publicUrl: () => 'http://x',
    runCall: async (t: Transport) => {
      t.output.write(reply(1000, 1000));
      await new Promise<void>((r) => (stop = r));
      return 'completed';
    },
  } as unknown as CallHost;
  const conn = jambonz.open({ url: new URL('ws://x/telephony/jambonz'), headers: {} });
  const c = new MediaConnection({ provider: 'jambonz', conn, sink: { send: () => {}, close: () => {} }, host, logger });
  c.receive({ text: JSON.stringify(fixture.fromPlatform.callAttributes.message) });
  // The platform keeps streaming the caller (silence) and reports nothing else.
  const caller = setInterval(() => c.receive({ binary: new Uint8Array(320) }), 20);
  try {
    const deadline = new Deadline(15_000);
    while (!lines.some((l) => /playout marks/.test(String(l.msg))) && !deadline.expired) await new Promise((r) => setTimeout(r, 100));
  } finally {
    clearInterval(caller);
  }
  const warning = String(lines.find((l) => /playout marks/.test(String(l.msg)))?.msg);
  assert.match(warning, /echoes none of the playout marks/);
  assert.match(warning, /mod_audio_fork.*JAMBONZ_MARKS=0.*marks=0 to the url of a listen verb/);
  assert.doesNotMatch(warning, /PCM gateway/);
  stop();
  c.closed('normal');
  await c.done;
});
