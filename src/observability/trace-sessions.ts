import type { Tracer } from '@opentelemetry/api';
import { otel } from './otel-api.ts';
import type { SessionFactory } from '../server/calls.ts';
import { CallTrace } from './call-trace.ts';
import { TRACER_NAME } from './trace-context.ts';

/** Whether spans of `tracer` are recorded (an SDK is registered): a no-op tracer costs nothing, so nothing is attached. */
export function tracingActive(tracer: Tracer = otel().trace.getTracer(TRACER_NAME)): boolean {
  const probe = tracer.startSpan('hiwar.probe');
  const on = probe.isRecording();
  // Not ended: an unended span is never exported, so the probe leaves no trace behind.
  return on;
}

/**
 * Wraps the server's session factory so each call's session is traced (`CallTrace`) from its
 * typed events: the one hook point, outside the session. Returns `inner` itself when no SDK
 * records spans.
 */
export function traceSessions(inner: SessionFactory, o: { tracer?: Tracer } = {}): SessionFactory {
  const tracer = o.tracer ?? otel().trace.getTracer(TRACER_NAME);
  if (!tracingActive(tracer)) return inner;
  return async (transport) => {
    const session = await inner(transport);
    const agent = (session as { agent?: { name?: unknown } }).agent?.name;
    const t = new CallTrace({ call: transport.call, tracer, ...(typeof agent === 'string' ? { agent } : {}) });
    // RxJS reports a subscriber's throw outside the call (an uncaught error): never let one out.
    const safe = (f: () => void) => {
      try {
        f();
      } catch {
        // a tracing bug loses spans, never the call
      }
    };
    session.events$.subscribe({ next: (e) => safe(() => t.onEvent(e)), complete: () => safe(() => t.end()), error: () => safe(() => t.end()) });
    return session;
  };
}
