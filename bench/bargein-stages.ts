/**
 * Where a barge-in's milliseconds go on the Twilio route (bench/bargein.ts, `hiwar serve`'s server
 * in the bench process). Every moment is on the epoch clock (`performance.timeOrigin + now()`),
 * read in the process where it happens:
 *
 *   S  the caller's speech starts (capture start of its first speech frame; caller process)
 *   C  that frame leaves the caller's socket (S + 20 ms of capture + the caller's own lateness)
 *   A  the first loud frame reaches the session (server: its WebSocket read, parse, μ-law decode)
 *   F  the fake sends SpeechStarted (fake process; its hold starts when the /listen message arrived: U)
 *   P  the session pauses the reply: the clear is written in the same synchronous step (server)
 *   R  the caller reads the clear (the stages add up to R − S; the wire figures are bench/barge-wire.ts's)
 *
 * Stages: capture (C − S), to the session (A − C: socket and the server's loop), the uplink to the
 * fake (U − A), the fake (F − U), back to the session and its decision (P − F) — or with the energy
 * detector, the decision from A (P − A: the second loud frame's capture is in it) — and the clear
 * to the caller (R − P). Alongside: the server's event-loop delay over the window
 * (`monitorEventLoopDelay`) and its collections (`perf_hooks` 'gc' entries), and per barge-in how
 * long a collection ran inside its server-side stretch (A → P): what of a slow barge-in is the
 * loop being busy with a collection, what the service (the fake), what the far end (the caller
 * process, on the same cores).
 *
 * Recording is bench-side: a level per caller frame (only while this is on) and a subscription to
 * each session's events; nothing is added to hiwar's paths.
 */
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import type { AudioFrame } from '../src/audio/frame.ts';
import type { AgentSession } from '../src/session/agent-session.ts';
import { meanLevel } from '../src/service/ws/listen-uplink.ts';
import type { Hold } from './fake-service.ts';
import { SPEECH_LEVEL } from './fake-listen.ts';
import { pcts, round } from './harness.ts';
import { GcLog, type Busy } from './tail.ts';
import type { TransportOutput } from '../src/transport/types.ts';
import type { CallerBarge, ServerInterrupt } from './barge-wire.ts';

const epochNow = () => performance.timeOrigin + performance.now();

/** Per-call moments recorded in the server's process. */
export class BargeStageRecorder {
  private readonly loudAt = new Map<string, number[]>();
  private readonly wasLoud = new Map<string, boolean>();
  private readonly pausedAt = new Map<string, number[]>();
  private readonly interrupts = new Map<string, ServerInterrupt[]>();
  private gc = new GcLog();
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 1 });

  /** Starts the loop and collection records afresh (at the start of each measured window). */
  start(): void {
    this.gc = new GcLog();
    this.gc.start();
    this.loop.reset();
    this.loop.enable();
  }

  stop(): void {
    this.gc.stop();
    this.loop.disable();
  }

  /** A caller frame on its way into the session: the first loud one after quiet is stamped. */
  frame(call: string, f: AudioFrame): void {
    const loud = meanLevel(f.samples) > SPEECH_LEVEL;
    if (loud && !this.wasLoud.get(call)) push(this.loudAt, call, epochNow());
    this.wasLoud.set(call, loud);
  }

  /**
   * A call's output: each `interrupt()` is stamped with the agent audio it still had to send (the
   * latest playback update's `queued`), which says whether a barge-in came during the reply or
   * after its last byte had left (bench/barge-wire.ts), and with when the output last wrote agent
   * media (the latest update whose `sent` grew). The one method is wrapped on this object.
   */
  output(call: string, out: TransportOutput): void {
    let unsent = 0;
    let sent = 0;
    let lastWrite: number | undefined;
    // An update whose `sent` grew follows the pacing step that wrote those frames, in the same synchronous step.
    out.playback$.subscribe((u) => {
      unsent = u.queued;
      if (u.sent > sent) lastWrite = epochNow();
      sent = u.sent;
    });
    const interrupt = out.interrupt.bind(out);
    out.interrupt = () => {
      push(this.interrupts, call, { at: epochNow(), unsentMs: unsent * 1000, lastWrite });
      return interrupt();
    };
  }

  /** The interrupt that sent a barge-in's clear: the last one after its speech frame left and before the clear was read. */
  interruptOf(b: CallerBarge): ServerInterrupt | undefined {
    return this.interrupts.get(b.call)?.findLast((i) => i.at >= b.sentAt - 1 && i.at <= b.clearAt + 1);
  }

  /** A session of the rig: its pauses (speech start heard while the agent spoke) are stamped. */
  session(call: string, s: AgentSession): void {
    s.events$.subscribe((e) => {
      if (e.type === 'interruption' && e.kind === 'paused') push(this.pausedAt, call, epochNow());
    });
  }

  /** The stages of every cleared barge-in the callers report, matched to this process's stamps and the fake's holds. */
  explain(barges: CallerBarge[], holds: Record<string, Hold[]>, fakeClockOffset: number, vad: 'service' | 'energy'): BargeStages {
    const gcs: Busy[] = this.gc.entries.map((g) => ({ ...g, start: performance.timeOrigin + g.start }));
    const rows: BargeRow[] = [];
    let unmatched = 0;
    for (const b of barges) {
      const a = firstAfter(this.loudAt.get(b.call), b.sentAt - 1);
      const p = a === undefined ? undefined : firstAfter(this.pausedAt.get(b.call), a);
      const speech = (holds[b.call] ?? []).filter((h) => h.kind === 'speech').map((h) => ({ sent: h.at - fakeClockOffset, arrived: h.at - h.heldMs - fakeClockOffset }));
      // The fake's SpeechStarted for this speech: read after the frame reached the session, sent
      // before the pause (a later one belongs to a later turn: this speech was heard otherwise).
      // With the energy detector the pause does not wait for it: no service stages then.
      const f = a === undefined || p === undefined || vad === 'energy' ? undefined : speech.find((h) => h.arrived >= a - 1 && h.sent <= p + 1);
      if (a === undefined || p === undefined || p - a > 2000 || (vad === 'service' && f === undefined)) {
        unmatched++;
        continue;
      }
      const gcMs = gcs.reduce((s, g) => s + Math.max(0, Math.min(p, g.start + g.ms) - Math.max(a, g.start)), 0);
      rows.push({
        total: b.clearAt - b.speechStart,
        capture: b.sentAt - b.speechStart,
        toSession: a - b.sentAt,
        uplink: f ? f.arrived - a : undefined,
        fake: f ? f.sent - f.arrived : undefined,
        back: f ? p - f.sent : undefined,
        decision: p - a,
        clearToCaller: b.clearAt - p,
        gcInServer: gcMs,
      });
    }
    const stage = (k: keyof BargeRow) => pcts(rows.map((r) => r[k]).filter((x): x is number => x !== undefined));
    const slow = [...rows].sort((x, y) => y.total - x.total).slice(0, Math.max(1, Math.ceil(rows.length * 0.05)));
    const mean = (k: keyof BargeRow) => {
      const xs = slow.map((r) => r[k]).filter((x): x is number => x !== undefined);
      return xs.length ? round(xs.reduce((s, x) => s + x, 0) / xs.length) : null;
    };
    const keys = ['total', 'capture', 'toSession', 'uplink', 'fake', 'back', 'decision', 'clearToCaller', 'gcInServer'] as const;
    const all = this.gc.total();
    const scavenge = this.gc.total('scavenge');
    return {
      matched: rows.length,
      unmatched,
      stages: Object.fromEntries(keys.map((k) => [k, stage(k)])) as BargeStages['stages'],
      slowest5pc: Object.fromEntries(keys.map((k) => [k, mean(k)])) as BargeStages['slowest5pc'],
      serverLoopDelayMs: { p50: round(this.loop.percentile(50) / 1e6, 2), p99: round(this.loop.percentile(99) / 1e6, 2), max: round(this.loop.max / 1e6, 2) },
      serverGc: { n: all.n, ms: round(all.ms), scavenges: scavenge.n, scavengeMs: round(scavenge.ms), maxMs: round(all.maxMs, 2) },
    };
  }
}

interface BargeRow {
  total: number;
  capture: number;
  toSession: number;
  uplink: number | undefined;
  fake: number | undefined;
  back: number | undefined;
  decision: number;
  clearToCaller: number;
  gcInServer: number;
}

/** Stage percentiles over the matched barge-ins, the slowest 5 %'s mean per stage, and the server's loop and collections. */
export interface BargeStages {
  matched: number;
  unmatched: number;
  stages: Record<keyof BargeRow, ReturnType<typeof pcts>>;
  slowest5pc: Record<keyof BargeRow, number | null>;
  serverLoopDelayMs: { p50: number | null; p99: number | null; max: number | null };
  serverGc: { n: number; ms: number | null; scavenges: number; scavengeMs: number | null; maxMs: number | null };
}

/** The stage table's rows: name, p50 / p95 / p99, the slowest 5 %'s mean. */
export function stageRows(s: BargeStages): [string, string, string][] {
  const names: [keyof BargeRow, string][] = [
    ['total', 'speech start → the caller reads the clear (the stages below add up to it)'],
    ['capture', 'capture: speech start → first speech frame sent (20 ms + the caller late)'],
    ['toSession', 'to the session: caller socket → session (server loop, parse, decode)'],
    ['uplink', 'uplink: session → the fake reads the /listen message'],
    ['fake', 'the fake: message read → SpeechStarted sent'],
    ['back', 'back: SpeechStarted sent → session pauses, clear written'],
    ['decision', 'first loud frame at the session → clear written'],
    ['clearToCaller', 'clear written → the caller reads it'],
    ['gcInServer', 'collections in the server during first loud frame → clear'],
  ];
  return names
    .filter(([k]) => s.stages[k].n > 0)
    .map(([k, name]) => [name, `${s.stages[k].p50} / ${s.stages[k].p95} / ${s.stages[k].p99}`, String(s.slowest5pc[k] ?? '–')]);
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const xs = m.get(k);
  if (xs) xs.push(v);
  else m.set(k, [v]);
}

function firstAfter(xs: number[] | undefined, t: number): number | undefined {
  return xs?.find((x) => x >= t);
}
