import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReorderBuffer } from '../../transports/telephony/reorder.ts';
import { decode, dtmfTones, encode, frameBytes } from '../../transports/telephony/codec.ts';
import { CallTokens, isLoopback } from '../../src/server/tokens.ts';
import { MemoryTokenLedger } from '../../src/server/token-ledger.ts';
import { MachineLedger, MachineRequests, type MachineChannel, type MachineMessage } from '../../src/cli/serve-machine.ts';
import { outcomeOf } from '../../src/server/call-end.ts';
import { serviceStatus } from '../../src/server/metrics.ts';
import { plivoSignature } from '../../transports/telephony/plivo.ts';
import { twilio, twilioSignature } from '../../transports/telephony/twilio.ts';

describe('reorder buffer', () => {
  const feed = (b: ReorderBuffer<number>, seqs: number[]) => seqs.flatMap((s) => b.push(s, s));

  test('frames swapped in pairs come out in order, including the first ones', () => {
    const b = new ReorderBuffer<number>();
    assert.deepEqual(feed(b, [2, 1, 4, 3, 6, 5, 8, 7]).concat(b.flush()), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(b.late + b.duplicates + b.lost, 0);
  });

  test('duplicates and late frames are dropped and counted', () => {
    const b = new ReorderBuffer<number>({ depth: 0 });
    assert.deepEqual(feed(b, [1, 2, 2, 3, 1]), [1, 2, 3]);
    assert.equal(b.late, 2, 'a repeat of a delivered frame is as late as an old one');
    const held = new ReorderBuffer<number>({ depth: 3 });
    assert.deepEqual(feed(held, [1, 2, 3, 4, 6, 6]), [1, 2, 3, 4]);
    assert.equal(held.duplicates, 1, 'a repeat of a held frame');
  });

  test('take: an orderly stream goes straight through; a gap, a stray frame and a resync between orderly runs keep the order', () => {
    const b = new ReorderBuffer<number>({ depth: 2, maxJump: 50 });
    const got: number[] = [];
    const take = (seqs: number[]) => seqs.forEach((s) => b.take(s, s, (x) => got.push(x)));
    take([1, 2]);
    assert.deepEqual(got, [], 'the first frames wait for `depth` more, as with push');
    take([3, 4, 5, 6]);
    assert.deepEqual(got, [1, 2, 3, 4, 5, 6]);
    take([8, 7, 9]); // a swap: 8 is held until 7
    assert.deepEqual(got.slice(6), [7, 8, 9]);
    take([500, 10, 11]); // one wild counter: set aside, then forgotten by the orderly frames
    assert.deepEqual(got.slice(9), [10, 11]);
    take([900, 901, 902]); // more than `depth` close frames far away: the stream follows them
    assert.deepEqual(got.slice(11), [900, 901, 902]);
    take([903]);
    assert.deepEqual(got.slice(14), [903]);
    assert.equal(b.resyncs, 1);
    assert.equal(b.late + b.duplicates + b.lost, 0);
  });

  test('a lost frame is given up once `depth` later frames wait', () => {
    const b = new ReorderBuffer<number>({ depth: 2 });
    assert.deepEqual(feed(b, [1, 2, 3, 5, 6]), [1, 2, 3]);
    assert.deepEqual(feed(b, [7]), [5, 6, 7]);
    assert.equal(b.lost, 1);
  });
});

describe('codecs at the edge', () => {
  test('L16 both byte orders round-trip; G.711 frames are one byte a sample', () => {
    const pcm = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);
    for (const endian of ['le', 'be'] as const) {
      const f = { codec: 'l16', sampleRate: 16000, frameMs: 20, endian } as const;
      assert.deepEqual(decode(f, encode(f, pcm)), pcm);
    }
    assert.equal(encode({ codec: 'l16', sampleRate: 8000, frameMs: 20, endian: 'be' }, Int16Array.from([1]))[1], 1, 'network byte order');
    assert.equal(frameBytes({ codec: 'mulaw', sampleRate: 8000, frameMs: 20 }), 160);
    assert.equal(frameBytes({ codec: 'l16', sampleRate: 16000, frameMs: 20 }), 640);
    const mu = { codec: 'mulaw', sampleRate: 8000, frameMs: 20 } as const;
    const back = decode(mu, encode(mu, Int16Array.from([1000, -1000])));
    assert.ok(Math.abs(back[0]! - 1000) < 40 && Math.abs(back[1]! + 1000) < 40);
  });

  test('DTMF tones: 100 ms tone and 80 ms gap per key, invalid keys skipped', () => {
    assert.equal(dtmfTones('12X#', 8000).length, 3 * 1440);
  });
});

describe('server pieces', () => {
  test('per-call tokens: scoped, kind-bound, expiring, tamper-evident, one call id each', () => {
    const t = new CallTokens({ secret: 's3cret', ttlMs: 1000 });
    const tok = t.mint('twilio', 'CA1', { parameters: { From: '+1' }, now: 0 });
    assert.equal(t.verify(tok, 'twilio', 'media', 500)?.callId, 'CA1');
    assert.equal(t.verify(tok, 'twilio', 'media', 500)?.parameters?.From, '+1');
    assert.equal(t.verify(tok, 'plivo', 'media', 500), undefined, 'another route');
    assert.equal(t.verify(tok, 'twilio', 'after', 500), undefined, 'a media token is no after-route token');
    const afterTok = t.mint('twilio', 'CA1', { kind: 'after', ttlMs: 86_400_000, now: 0 });
    assert.equal(t.verify(afterTok, 'twilio', 'media', 500), undefined, 'an after-route token opens no media');
    assert.equal(t.verify(afterTok, 'twilio', 'after', 500)?.callId, 'CA1');
    assert.equal(t.verify(tok, 'twilio', 'media', 2000), undefined, 'expired');
    assert.equal(t.verify(tok.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), 'twilio', 'media', 500), undefined, 'tampered');
    assert.equal(new CallTokens({ secret: 'other' }).verify(tok, 'twilio', 'media', 500), undefined, 'another server');
    assert.equal(new CallTokens({ secret: 's3cret' }).verify(tok, 'twilio', 'media', 500)?.parameters?.From, '+1', 'another worker or instance with the same secret');
    assert.equal(new CallTokens().verify(new CallTokens().mint('twilio', 'CA1'), 'twilio'), undefined, 'random secrets: one per process');
    assert.equal(t.verify(undefined, 'twilio'), undefined);
    assert.notEqual(t.mint('twilio', 'CA1'), t.mint('twilio', 'CA1'), 'each token has its own id');
    assert.throws(() => t.mint('twilio', ''), /call id/);
  });

  test('isLoopback parses addresses: no name passes for loopback by its prefix', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) assert.equal(isLoopback(h), true, h);
    for (const h of ['127.x.example.com', '127.0.0.1.example.com', '0.0.0.0', '::', '10.0.0.1', '::ffff:10.0.0.1', '128.0.0.1', '']) assert.equal(isLoopback(h), false, h);
  });

  test('the token ledger spends a key once, forgets it after its time, and holds at most maxKeys', async () => {
    const l = new MemoryTokenLedger({ maxKeys: 3 });
    assert.equal(await l.spend('a', 1000, 0), true);
    assert.equal(await l.spend('a', 1000, 500), false, 'a replay');
    assert.equal(await l.spend('a', 1000, 1001), true, 'after its time');
    for (const k of ['b', 'c', 'd', 'e']) await l.spend(k, 10_000, 1002);
    assert.equal(l.size, 3);
  });

  test("the ledger says whether a key is spent without spending it (a placed call's media, on any worker of the machine)", async () => {
    const l = new MemoryTokenLedger();
    assert.equal(await l.spent('call:twilio:out-1', 0), false);
    await l.spend('call:twilio:out-1', 1000, 0);
    assert.equal(await l.spent('call:twilio:out-1', 500), true);
    assert.equal(await l.spent('call:twilio:out-1', 1001), false, 'after its time');
    assert.equal(await l.spend('call:twilio:out-1', 1000, 1002), true, 'asking did not spend it');
    // A worker asks the primary, which holds the machine's ledger (as serve-workers.ts answers).
    const primary = new MemoryTokenLedger();
    const listeners: ((m: unknown) => void)[] = [];
    const channel: MachineChannel = {
      on: (_e, f) => listeners.push(f),
      send: (m) => {
        const answer = (a: MachineMessage) => setImmediate(() => listeners.forEach((f) => f(a)));
        if (m.hiwar === 'spend') void primary.spend(m.key, m.ttlMs).then((ok) => answer({ hiwar: 'spent', id: m.id, ok }));
        if (m.hiwar === 'check-spent') void primary.spent(m.key).then((spent) => answer({ hiwar: 'was-spent', id: m.id, spent }));
      },
    };
    const worker = new MachineLedger(new MachineRequests(channel));
    assert.equal(await worker.spent('call:telnyx:out-2'), false);
    assert.equal(await worker.spend('call:telnyx:out-2', 60_000), true);
    assert.equal(await worker.spent('call:telnyx:out-2'), true);
  });

  test('outcomes from end reasons; service status from error messages', () => {
    assert.equal(outcomeOf('caller hung up', false), 'caller-hangup');
    assert.equal(outcomeOf('agent hung up', false), 'agent-hangup');
    assert.equal(outcomeOf('transferred to +9665', false), 'transferred');
    assert.equal(outcomeOf('out of service: 402', true), 'failed');
    assert.equal(outcomeOf('done', false), 'completed');
    assert.equal(outcomeOf('server shutting down', false), 'server-shutdown', 'a drain out of time');
    assert.equal(serviceStatus('402 40201 /listen: insufficient balance'), '402');
    assert.equal(serviceStatus('socket closed 40101'), '401');
    assert.equal(serviceStatus('connection reset'), 'unknown');
  });

  test('Twilio media out: the same text JSON.stringify writes, stream id escaped, before and after start', () => {
    const conn = twilio.open({ url: new URL('ws://h/telephony/twilio'), headers: {} });
    const payload = Uint8Array.from({ length: 160 }, (_, i) => (i * 37) & 0xff);
    const expected = (streamSid: string) => JSON.stringify({ event: 'media', streamSid, media: { payload: Buffer.from(payload).toString('base64') } });
    assert.deepEqual(conn.encodeAudio(payload), { text: expected('') });
    const sid = 'MZ"odd\\sid\u0001';
    conn.parse({ text: JSON.stringify({ event: 'start', streamSid: sid, start: { streamSid: sid, callSid: 'CA1', mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } }) });
    const out = conn.encodeAudio(payload);
    assert.deepEqual(out, { text: expected(sid) });
    assert.equal(JSON.parse((out as { text: string }).text).streamSid, sid);
  });

  test('Twilio signature: the documented example', () => {
    // From Twilio's webhook security docs: auth token 12345, this URL and these fields.
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    const params = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' };
    assert.equal(twilioSignature('12345', url, params), '0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
  });

  test('Plivo V3 signature: query and POST fields placed as Plivo builds them', () => {
    const a = plivoSignature('tok', 'POST', 'https://h/x?b=2&a=1', { Z: '1', A: '2' }, 'n1');
    const b = plivoSignature('tok', 'POST', 'https://h/x?a=1&b=2', { A: '2', Z: '1' }, 'n1');
    assert.equal(a, b, 'order of fields does not matter');
    assert.notEqual(a, plivoSignature('tok', 'POST', 'https://h/x?a=1&b=2', { A: '2', Z: '1' }, 'n2'));
    assert.notEqual(a, plivoSignature('tok', 'GET', 'https://h/x?a=1&b=2', { A: '2', Z: '1' }, 'n1'));
  });
});

describe('reorder buffer: a counter that jumps or restarts', () => {
  const run = (seqs: number[]) => {
    const b = new ReorderBuffer<number>();
    const out = seqs.flatMap((s) => b.push(s, s)).concat(b.flush());
    return { b, out };
  };
  const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

  test('four frames at chunk 1e15 in a stream of a thousand: the stream goes on (at most 8 frames lost)', () => {
    const later = range(105, 1000);
    const { b, out } = run([...range(1, 104), ...range(1e15, 4), ...later]);
    const delivered = later.filter((s) => out.includes(s)).length;
    assert.ok(delivered >= 1000 - 8, `${delivered} of 1000 later frames delivered`);
    assert.ok(b.late <= 8, `${b.late} late`);
    assert.ok(b.resyncs >= 1);
  });

  test('a counter that restarts at 1 is followed: nothing after the restart is lost', () => {
    const { b, out } = run([...range(5000, 200), ...range(1, 500)]);
    for (const s of range(1, 500)) assert.ok(out.includes(s), `frame ${s} of the restarted counter delivered`);
    assert.equal(b.resyncs, 1);
    assert.deepEqual(out.slice(200, 205), [1, 2, 3, 4, 5], 'in order after the old sequence');
  });

  test('one stray frame amid a steady stream is dropped, the stream untouched', () => {
    const { b, out } = run([...range(1, 50), 9_999_999, ...range(51, 50)]);
    assert.deepEqual(out, range(1, 100));
    assert.equal(b.resyncs, 0);
  });
});
