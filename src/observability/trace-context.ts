import type { Context, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { otel } from './otel-api.ts';
import type { IncomingHttpHeaders } from 'node:http';

/** The name hiwar's spans are recorded under (the instrumentation scope). */
export const TRACER_NAME = 'hiwar';

/**
 * Call parameters that carry the trace from the webhook into the call: the webhook's span as a
 * W3C `traceparent`, and the platform's request id. They travel inside the signed media token.
 */
export const TRACE_PARAMETERS = { traceparent: 'traceparent', requestId: 'requestId' } as const;

/** Request headers a platform or a proxy puts its request id in, first found wins. */
const REQUEST_ID_HEADERS = ['x-request-id', 'x-amzn-trace-id', 'i-twilio-idempotency-token', 'x-correlation-id'];

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A W3C `traceparent` header as a remote span context; undefined when absent or malformed (version ff, zero ids). */
export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  const m = TRACEPARENT.exec((value ?? '').trim().toLowerCase());
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return { traceId: m[2]!, spanId: m[3]!, traceFlags: parseInt(m[4]!, 16) & otel().TraceFlags.SAMPLED, isRemote: true };
}

/** A span context as a W3C `traceparent` value. */
export function formatTraceparent(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-0${(sc.traceFlags & otel().TraceFlags.SAMPLED).toString(16)}`;
}

/** The context a call's trace starts in: a child of the `traceparent` among its parameters, else a new trace. */
export function callParentContext(parameters: Record<string, string>): Context {
  const sc = parseTraceparent(parameters[TRACE_PARAMETERS.traceparent]);
  return sc ? otel().trace.setSpanContext(otel().ROOT_CONTEXT, sc) : otel().ROOT_CONTEXT;
}

/** The first request id header of a webhook request, if any (trimmed to a sane length). */
export function requestIdOf(headers: IncomingHttpHeaders): string | undefined {
  for (const h of REQUEST_ID_HEADERS) {
    const v = headers[h];
    const s = Array.isArray(v) ? v[0] : v;
    if (s) return s.slice(0, 128);
  }
  return undefined;
}

/** A webhook request's span and what the call it starts carries forward (`TRACE_PARAMETERS`). */
export interface WebhookTrace {
  /** Parameters to add to the media token: the trace's parent and the request id (none when there is nothing to carry). */
  readonly parameters: Record<string, string>;
  /** Ends the webhook's span with the HTTP status answered. */
  end(status: number): void;
}

/**
 * Starts the span of a telephony webhook (a child of its `traceparent` header, if any). Without
 * an SDK the span records nothing, but an incoming `traceparent` still passes through to the call.
 */
export function traceWebhook(headers: IncomingHttpHeaders, provider: string, tracer: Tracer = otel().trace.getTracer(TRACER_NAME)): WebhookTrace {
  const incoming = parseTraceparent(headerValue(headers.traceparent));
  const parent = incoming ? otel().trace.setSpanContext(otel().context.active(), incoming) : otel().ROOT_CONTEXT;
  const requestId = requestIdOf(headers);
  const span: Span = tracer.startSpan('hiwar.webhook', { kind: otel().SpanKind.SERVER, attributes: { 'hiwar.provider': provider, ...(requestId ? { 'hiwar.request_id': requestId } : {}) } }, parent);
  const sc = span.spanContext();
  const carried = span.isRecording() ? sc : incoming;
  return {
    parameters: {
      ...(carried ? { [TRACE_PARAMETERS.traceparent]: formatTraceparent(carried) } : {}),
      ...(requestId ? { [TRACE_PARAMETERS.requestId]: requestId } : {}),
    },
    end(status) {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: otel().SpanStatusCode.ERROR });
      span.end();
    },
  };
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
