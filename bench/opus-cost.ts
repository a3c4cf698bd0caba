/**
 * What the agent's Opus encoder costs per 20 ms frame at each complexity, through `AgentOutput`
 * on a manual clock (no network, no timers): CPU per packet, bytes per packet, and the waveform
 * SNR of the decoded speech. The speech is an Arabic line voiced by the sandbox's engine at the
 * TTS socket's 24 kHz. Chose `AGENT_OUTPUT_DEFAULTS.complexity`; see docs/webrtc.md.
 *
 * Usage: npx tsx bench/opus-cost.ts [complexities=10,8,7,6,5,3,0]
 */
import { resample } from '../src/audio/resample.ts';
import { voiceText } from '../src/sandbox/engines/espeak.ts';
import { AgentOutput } from '../transports/webrtc/agent-output.ts';
import { createOpusCodec, type OpusCodec } from '../transports/webrtc/opus.ts';
import { PacketClock } from '../transports/webrtc/packet-clock.ts';
import { parseRtp } from '../transports/webrtc/rtp.ts';

const LINE = 'مرحبا بك في خدمة العملاء، كيف يمكنني مساعدتك اليوم؟ رقم طلبك هو ثلاثة وأربعون، وسيصل خلال يومين إن شاء الله. هل تحتاج إلى أي شيء آخر؟';

/** Decoded against the original, at the lag (the codec's delay) that lines them up best. */
function snrDb(original: Int16Array, decoded: Int16Array): number {
  let bestLag = 0;
  let bestErr = Infinity;
  const from = Math.min(24000, original.length >> 2);
  const to = Math.min(from + 24000, original.length - 1000);
  for (let lag = 0; lag < 1000; lag++) {
    let e = 0;
    for (let i = from; i < to; i++) e += (original[i]! - (decoded[i + lag] ?? 0)) ** 2;
    if (e < bestErr) (bestErr = e), (bestLag = lag);
  }
  let sig = 0;
  let err = 0;
  for (let i = 0; i + bestLag < decoded.length && i < original.length; i++) (sig += original[i]! ** 2), (err += (original[i]! - decoded[i + bestLag]!) ** 2);
  return 10 * Math.log10(sig / err);
}

const complexities = (process.argv[2] ?? '10,8,7,6,5,3,0').split(',').map(Number);
const v = await voiceText(LINE, { name: 'ar', pitch: 50, wpm: 160 });
const voice = await resample(v.samples, v.sampleRate, 24000);
console.log(`Opus encoding of ${(voice.length / 24000).toFixed(1)} s of Arabic speech at 24 kHz, 32 kbit/s, through AgentOutput (3 passes, the cheapest kept)`);
console.log('complexity  CPU µs/packet  % of a core per call  bytes/packet  SNR dB');
const rows = [];
for (const complexity of complexities) {
  let best = Infinity;
  let bytes = 0;
  let snr = 0;
  for (let pass = 0; pass < 3; pass++) {
    const clock = new PacketClock({ manual: true });
    const payloads: Buffer[] = [];
    const out = new AgentOutput((rtp) => payloads.push(Buffer.from(parseRtp(rtp).payload)), clock, { complexity });
    out.write({ samples: voice, sampleRate: 24000, time: 0 });
    const n = Math.ceil(voice.length / 480);
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) clock.step();
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / n);
    await out.close();
    if (pass === 0) {
      bytes = payloads.reduce((a, p) => a + p.length, 0) / payloads.length;
      const dec = createOpusCodec(24000, 1);
      const pcm = Buffer.concat(payloads.map((p) => dec.decode(p)));
      snr = snrDb(voice, new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length >> 1));
    }
  }
  rows.push({ complexity, cpuUsPerPacket: Math.round(best), corePctPerCall: Math.round(best / 2) / 100, bytesPerPacket: Math.round(bytes), snrDb: Math.round(snr * 10) / 10 });
  const r = rows.at(-1)!;
  console.log(`${String(complexity).padStart(10)}  ${String(r.cpuUsPerPacket).padStart(13)}  ${String(r.corePctPerCall).padStart(20)}  ${String(r.bytesPerPacket).padStart(12)}  ${String(r.snrDb).padStart(6)}`);
}
console.log(JSON.stringify({ bench: 'opus-cost', rows }));
