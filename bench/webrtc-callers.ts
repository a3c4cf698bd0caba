/**
 * The callers of the WebRTC density bench, in a process of their own so that werift (WebRTC in
 * pure JavaScript: DTLS, SRTP and RTCP in JS, far costlier than the server's side) is not counted
 * as hiwar's CPU. Forked by bench/webrtc-density.ts with `<url> <secret> <n>`; joins n werift
 * callers (each sends 20 ms Opus packets of Arabic speech on its own real-time clock, and counts
 * what arrives without decoding it), then answers `mark` and `stop` with what it received.
 */
import { resample } from '../src/audio/resample.ts';
import { voiceText } from '../src/sandbox/engines/espeak.ts';
import { createOpusCodec, type OpusCodec } from '../transports/webrtc/opus.ts';
import { WeriftPeer } from '../test/helpers/werift-peer.ts';

export interface CallersReport {
  type: 'marked' | 'stopped';
  /** Agent packets received per caller so far. */
  received: number[];
  /** RFC 3550 interarrival jitter of each caller's agent stream now, ms. */
  jitterMs: number[];
  /** The largest single deviation of an arrival from the stream's 20 ms spacing, per caller, ms. */
  maxDeviationMs: number[];
  /** CPU seconds this process has used so far. */
  cpuSeconds: number;
}

/**
 * What the callers say: speech, not silence (the server decodes every packet, and Opus silence
 * decodes at half the cost), encoded once here and looped by every caller from its own place.
 */
async function callerSpeech(): Promise<Buffer[]> {
  const v = await voiceText('السلام عليكم، أريد أن أسأل عن طلبي رقم مئة وخمسة وعشرين، متى يصل؟ وهل يمكنني تغيير العنوان؟', { name: 'ar+f3', pitch: 60, wpm: 150 });
  const pcm = await resample(v.samples, v.sampleRate, 48000);
  const enc = createOpusCodec(48000, 1);
  const packets: Buffer[] = [];
  for (let off = 0; off + 960 <= pcm.length; off += 960) packets.push(enc.encode(Buffer.from(pcm.buffer, pcm.byteOffset + off * 2, 1920)));
  return packets;
}

const JOIN_TIMEOUT_MS = 30_000;
const [url, secret, count] = process.argv.slice(2);
const speech = await callerSpeech();
const peers: WeriftPeer[] = [];
for (let i = 0; i < Number(count); i++) {
  const res = await fetch(`${url}/webrtc/token`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: '{}' });
  const { token } = (await res.json()) as { token: string };
  const joined = WeriftPeer.join(url!, token, { decode: false, loop: speech, loopStart: (i * 97) % speech.length });
  // A join that never completes (seen at 60 callers on a starved machine) fails the level
  // instead of holding the bench forever.
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`caller ${i + 1} of ${count} did not join within ${JOIN_TIMEOUT_MS / 1000} s`)), JOIN_TIMEOUT_MS).unref());
  try {
    peers.push(await Promise.race([joined, timeout]));
  } catch (err) {
    console.error(`webrtc-callers: ${(err as Error).message}`);
    process.exit(1);
  }
}

function report(type: CallersReport['type']): CallersReport {
  const cpu = process.cpuUsage();
  const jitter = peers.map((p) => p.jitterFrom('agent')[0]);
  return {
    type,
    received: peers.map((p) => p.from('agent').packets.length),
    jitterMs: jitter.map((j) => j?.jitterMs ?? 0),
    maxDeviationMs: jitter.map((j) => j?.maxDeviationMs ?? 0),
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

process.on('message', (m: { type: string }) => {
  if (m.type === 'mark') {
    // The window starts now: the worst deviation is the window's, not the joins'.
    for (const p of peers) for (const j of p.jitterFrom('agent')) j.maxDeviationMs = 0;
    process.send!(report('marked'));
  } else if (m.type === 'stop') {
    // The figures first: leaving can be slow on a starved machine, and the bench waits for them.
    process.send!(report('stopped'));
    const leaving = Promise.all(peers.map((p) => p.leave()));
    void Promise.race([leaving, new Promise((r) => setTimeout(r, 5000))]).then(() => process.exit(0));
  }
});
// The bench went away (killed, or failed a level): so do its callers.
process.on('disconnect', () => process.exit(0));
process.send!({ type: 'joined' });
