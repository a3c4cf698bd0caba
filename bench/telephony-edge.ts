/**
 * `npm run bench -- telephony-edge [calls=100] [seconds=10] [step=40]`: the CPU of the telephony edge
 * alone, without sockets or a session: per call, Twilio media messages in (parse, base64, μ-law,
 * reorder, hand-over to a subscriber) and agent audio out (pacing in real time, μ-law, base64,
 * the media text, marks acknowledged as Twilio would), the agent talking all the time. It isolates what
 * transports/telephony costs per message, which the density bench mixes with socket writes, the
 * session and the machine's load. Work is fixed (calls × seconds of audio each way), so the CPU
 * time is comparable between builds; µs per inbound and per outbound message are printed.
 */
import { performance } from 'node:perf_hooks';
import type { CallHost } from '../src/server/types.ts';
import type { Transport } from '../src/transport/types.ts';
import { MediaConnection } from '../transports/telephony/connection.ts';
import type { WireMessage } from '../transports/telephony/provider.ts';
import { twilio } from '../transports/telephony/twilio.ts';
import { mulaw } from '../src/audio/g711.ts';
import { conditions, spanLine } from './conditions.ts';
import { perfClock, round, type BenchArgs } from './harness.ts';

const FRAME = 160;

export async function telephonyEdge({ rest }: BenchArgs): Promise<Record<string, unknown>> {
  const named = Object.fromEntries(rest.filter((a) => a.includes('=')).map((a) => a.split('=') as [string, string]));
  const calls = Number(named.calls ?? 100);
  const seconds = Number(named.seconds ?? 10);
  const sendEveryMs = named.step !== undefined ? Number(named.step) : undefined;
  const clock = perfClock;
  const tone = Int16Array.from({ length: FRAME }, (_, i) => Math.round(3000 * Math.sin((2 * Math.PI * 220 * i) / 8000)));
  const payload = Buffer.from(mulaw.encode(tone)).toString('base64');
  const transports: Transport[] = [];
  let framesIn = 0;
  const host: CallHost = {
    draining: false,
    publicUrl: () => 'http://bench',
    runCall: (t) => {
      transports.push(t);
      t.audio$.subscribe(() => framesIn++);
      return new Promise(() => {});
    },
  };
  const conns: MediaConnection[] = [];
  const marks: string[][] = [];
  let messagesOut = 0;
  for (let c = 0; c < calls; c++) {
    const acks: string[] = [];
    marks.push(acks);
    const conn = new MediaConnection({
      provider: 'twilio',
      conn: twilio.open({ url: new URL('ws://bench/telephony/twilio'), headers: {} }),
      sink: {
        send: (m: WireMessage) => {
          messagesOut++;
          // Twilio echoes each mark once the audio before it has played: here, on the next step.
          if ('text' in m && m.text.startsWith('{"event":"mark"')) acks.push((JSON.parse(m.text) as { mark: { name: string } }).mark.name);
        },
        close: () => {},
      },
      host,
      media: { clock, sendEveryMs },
      startTimeoutMs: 1e9,
      idleTimeoutMs: 1e9,
    });
    conn.receive({ text: JSON.stringify({ event: 'start', streamSid: `MZ${c}`, start: { streamSid: `MZ${c}`, callSid: `CA${c}`, tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } }) });
    conns.push(conn);
  }
  const agentAudio = new Int16Array(8000).fill(1000);
  const conds = conditions();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let inbound = 0;
  // One 20 ms clock for the callers' frames (due times kept, so a late tick catches up).
  let due = performance.now();
  for (let k = 0; k < seconds * 50; k++) {
    for (let c = 0; c < calls; c++) {
      conns[c]!.receive({ text: `{"event":"media","streamSid":"MZ${c}","media":{"track":"inbound","chunk":"${k + 1}","timestamp":"${k * 20}","payload":"${payload}"}}` });
      inbound++;
      // The agent talks all the time: another second of audio every second.
      if (k % 50 === 0) transports[c]!.output.write({ samples: agentAudio, sampleRate: 8000, time: clock.now() });
      for (const name of marks[c]!.splice(0)) conns[c]!.receive({ text: `{"event":"mark","streamSid":"MZ${c}","mark":{"name":"${name}"}}` });
    }
    due += 20;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
  }
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - t0;
  const ran = conds.end();
  for (const c of conns) c.closed('normal');
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const res = {
    bench: 'telephony-edge',
    calls,
    seconds,
    sendEveryMs: sendEveryMs ?? null,
    inboundMessages: inbound,
    framesIn,
    messagesOut,
    cpuMs: Math.round(cpuMs),
    wallMs: Math.round(wallMs),
    usPerMessage: round((cpuMs * 1000) / (inbound + messagesOut), 2),
    /** CPU for one call-second of this edge (both directions), as % of a core for 100 calls. */
    pctOfCoreFor100Calls: round((cpuMs / (calls * seconds * 1000)) * 100 * 100, 2),
    conditions: ran,
  };
  console.log(`telephony-edge: ${calls} calls × ${seconds} s: ${inbound} media messages in, ${messagesOut} out; ${res.cpuMs} ms CPU, ${res.usPerMessage} µs per message; 100 calls would use ${res.pctOfCoreFor100Calls} % of a core here; cold process (no warm-up), no sockets; ${spanLine(ran)}`);
  return res;
}
