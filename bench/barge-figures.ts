/**
 * The barge-in bench's wire figures over a run (bench/bargein.ts): each barge-in sorted by
 * bench/barge-wire.ts into during the reply or after its last byte, the two figures with the
 * number of barge-ins each covers, and, for `trace=FILE`, every barge-in's moments.
 */
import { bargeFigure, type CallerBarge, type ServerInterrupt } from './barge-wire.ts';
import { pcts, round } from './harness.ts';

/** The two wire figures over a run's barge-ins, each with the number it covers, and the figure of before beside them. */
export function wireFigures(barges: CallerBarge[], serverOf: (b: CallerBarge) => ServerInterrupt | undefined) {
  const all = barges.map((b) => ({ b, f: bargeFigure(b, serverOf(b)) }));
  const during = all.filter((x) => x.f.kind === 'during');
  const after = all.filter((x) => x.f.kind === 'after');
  const legacyZero = all.filter((x) => x.f.legacyMs === 0);
  return {
    duringReply: {
      n: during.length,
      speechToLastAudioOnWireMs: pcts(during.map((x) => x.f.ms)),
      /** The server still had audio to send, but none reached the caller between its speech start and the clear. */
      noAudioAfterSpeech: during.filter((x) => x.b.mediaAfter === 0).length,
      /** The same barge-ins timed to the server's last agent media write (bench/barge-wire.ts's `serverMs`): the callers' read delay out. */
      speechToLastWriteMs: pcts(during.flatMap((x) => (x.f.serverMs === undefined ? [] : [x.f.serverMs]))),
    },
    afterLastByte: { n: after.length, speechToClearMs: pcts(after.map((x) => x.f.ms)) },
    callerOnly: all.filter((x) => x.f.callerOnly).length,
    /** The figure of before over every barge-in, and how many it read as 0 though agent audio reached the caller after speech start. */
    legacy: {
      speechToLastAudioOnWireMs: pcts(all.map((x) => x.f.legacyMs)),
      readZero: legacyZero.length,
      readZeroWithAudioAfterSpeech: legacyZero.filter((x) => x.b.mediaAfter > 0).length,
    },
  };
}

/** Every barge-in's moments, relative to its speech start (ms), one JSON line each (with `extra`'s fields): the evidence behind the figures. */
export function traceLines(barges: CallerBarge[], serverOf: (b: CallerBarge) => ServerInterrupt | undefined, extra: Record<string, string> = {}): string {
  const rel = (t: number | undefined, s: number) => (t === undefined ? null : round(t - s, 2));
  const lines = barges.map((b) => {
    const server = serverOf(b);
    const f = bargeFigure(b, server);
    return JSON.stringify({
      ...extra,
      call: b.call,
      speechStart: round(b.speechStart, 2),
      kind: f.kind,
      ms: round(f.ms, 2),
      legacyMs: round(f.legacyMs, 2),
      lastMediaBefore: rel(b.lastBefore, b.speechStart),
      frameSent: rel(b.sentAt, b.speechStart),
      lastMedia: rel(b.lastMedia, b.speechStart),
      mediaAfter: b.mediaAfter,
      mediaBeforeFrameSent: b.mediaBeforeSent,
      interrupt: rel(server?.at, b.speechStart),
      lastWrite: rel(server?.lastWrite, b.speechStart),
      serverMs: f.serverMs === undefined ? null : round(f.serverMs, 2),
      unsentMs: server ? round(server.unsentMs, 1) : null,
      clearRead: rel(b.clearAt, b.speechStart),
    });
  });
  return lines.map((l) => `${l}\n`).join('');
}
