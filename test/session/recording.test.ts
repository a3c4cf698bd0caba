import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import wavefile from 'wavefile';
import { ServiceClient } from '../../src/service/index.ts';
import { agentTurns, call } from '../helpers/call.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => {
  sb = await runSandbox();
});
after(() => sb.close());

const LEVEL = 300;

/** Sound in one channel: onsets exact to the sample, pieces less than 300 ms apart joined. */
function sounds(ch: Int16Array, rate: number): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (let i = 0; i < ch.length; i++) {
    if (Math.abs(ch[i]!) < LEVEL) continue;
    const t = i / rate;
    const last = out.at(-1);
    if (last && t - last.end < 0.3) last.end = t;
    else out.push({ start: t, end: t });
  }
  return out;
}

const near = (what: string, file: number, clock: number, tolMs: number) =>
  assert.ok(Math.abs(file - clock) * 1000 <= tolMs, `${what}: ${file.toFixed(3)} s in the file, ${clock.toFixed(3)} s on the clock`);

test('call.wav is one timeline: caller audio sits where the one clock sent it (within 20 ms); the barge-in shows in order', async () => {
  const client = new ServiceClient({ apiKey: sb.key, baseUrl: sb.sandbox.url, maxRetries: 0 });
  // Watched from outside the recorder: when each caller frame was sent.
  const sent: { time: number; got: number; onset: number }[] = [];
  const c = await call(
    client,
    [{ say: 'أريد معرفة رصيد حسابي' }, { say: 'بطاقتي ضاعت أرجو إيقافها' }, { say: 'انتظر من فضلك أريد التحدث مع موظف', bargeInAfterMs: 1500 }],
    {
      onSession: (_session, caller) => {
        // Subscribed before the session, so this sees each frame the moment it is sent (the
        // session then misses only the silence sent while it connects).
        caller.audio$.subscribe((f) => sent.push({ time: f.time, got: caller.startedAt + caller.elapsed() * 1000, onset: f.samples.findIndex((v) => Math.abs(v) >= LEVEL) / f.sampleRate }));
      },
    },
  );
  const origin = c.caller.startedAt;
  const wav = new wavefile.WaveFile(c.caller.recording());
  const rate = (wav.fmt as { sampleRate: number }).sampleRate;
  const [left, right] = wav.getSamples(false, Int16Array) as unknown as [Int16Array, Int16Array];
  const callerInFile = sounds(left, rate);
  const agentInFile = sounds(right, rate);

  // Caller: each line's onset in the file is when the caller sent it (the clock at sending,
  // plus where the sound starts inside that frame). A loaded machine may leave gaps inside a
  // line (the caller speaks late rather than stamping audio with past times): lines are told
  // apart by the caller's own account of when it spoke.
  assert.equal(c.caller.lines.length, 3);
  const cuts: { start: number; end: number }[] = [];
  c.caller.lines.forEach((line, i) => {
    const within = (t: number) => t >= line.start - 0.05 && t <= line.end + 0.05;
    const inFile = callerInFile.filter((s) => within(s.start));
    const frame = sent.find((f) => f.onset >= 0 && within((f.got - origin) / 1000));
    assert.ok(inFile.length && frame, `line ${i + 1} is in the file and was sent`);
    const onsetSent = (frame.got - origin) / 1000 + frame.onset;
    near(`caller line ${i + 1} onset`, inFile[0]!.start, onsetSent, 20.1);
    cuts.push({ start: inFile[0]!.start, end: inFile.at(-1)!.end });
  });

  // Agent: its audio is placed by the output's own frame times (see PacedOutput); at least
  // the greeting and the replies are there.
  assert.ok(agentInFile.length >= 4, 'greeting and three replies');

  // The barge-in: in the file the agent is speaking when the caller cuts in (a loaded machine
  // may leave gaps in both sides' audio), and stops while the caller speaks, not before.
  const cut = cuts[2]!;
  assert.ok(agentInFile.some((s) => s.start < cut.start + 0.1 && s.end > cut.start - 0.5), `the agent speaks up to the cut at ${cut.start.toFixed(3)} s: ${JSON.stringify(agentInFile)}`);
  const during = agentInFile.filter((s) => s.start < cut.end && s.end > cut.start);
  assert.ok(during.length && during.at(-1)!.end < cut.end, `the agent stopped while the caller spoke (${cut.start.toFixed(2)}–${cut.end.toFixed(2)} s)`);
  assert.ok(agentTurns(c).some((t) => t.interrupted));
});
