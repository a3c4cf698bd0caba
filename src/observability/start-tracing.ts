import type { Logger } from '../session/logger.ts';
import type { OtelSetup } from './otel-setup.ts';

export type { OtelSetup };

/**
 * Registers the OpenTelemetry SDK in your own process as `hiwar serve --otel` does: spans batched
 * to OTLP over HTTP at `OTEL_EXPORTER_OTLP_ENDPOINT` (or `…_TRACES_ENDPOINT`, default
 * `http://localhost:4318`), `OTEL_SERVICE_NAME` (default `hiwar`), async context. Then
 * `traceSessions` records each call; `shutdown()` after the drain sends the last spans. An export
 * that fails (the collector down) is a warn line of `logger` (default: pino at warn, to stderr),
 * at most one a minute. Throws
 * `MissingDependencyError` naming the `npm install` when a tracing package is missing. Loaded on
 * the first call: the server's entry does not load the SDK's modules without it.
 */
export async function startTracing(o: { logger?: Logger; env?: NodeJS.ProcessEnv } = {}): Promise<OtelSetup> {
  const { startOtel, TRACING_ASKED_BY } = await import('./otel-setup.ts');
  return startOtel(o.env ?? process.env, { by: TRACING_ASKED_BY.startTracing, ...(o.logger ? { logger: o.logger } : {}) });
}
