import { context, diag, DiagLogLevel, trace, type DiagLogger } from '@opentelemetry/api';
import type { Logger } from '../session/logger.ts';
import { importOptional, isInstalled, missingPackages, MissingDependencyError, type OptionalPackage } from '../optional.ts';

/**
 * The packages `--otel` needs (optional peers): the SDK, async context, the OTLP HTTP exporter
 * and the resources the SDK depends on (named too, so npm installs the version hiwar's range takes).
 */
export const OTEL_PACKAGES: OptionalPackage[] = ['@opentelemetry/sdk-trace', '@opentelemetry/context-async-hooks', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources'];

/** How `hiwar serve --otel` exports spans. */
export const OTEL_DEFAULTS = {
  /** The service name on every span, unless OTEL_SERVICE_NAME says otherwise. */
  serviceName: 'hiwar',
  /** Where spans go unless OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) says: an OpenTelemetry Collector on this machine. */
  endpoint: 'http://localhost:4318',
  /** Spans are sent in batches at most this far apart. */
  scheduledDelayMillis: 2000,
  /** What the SDK reports as an error (an export the collector refused or never took: spans lost) is logged at most this often. */
  errorLogEveryMs: 60_000,
} as const;

/** Tracing as `hiwar serve` set it up: where spans go, and the shutdown that sends the last ones. */
export interface OtelSetup {
  /** The traces URL spans are posted to (…/v1/traces). */
  readonly url: string;
  /** Sends the spans not sent yet and stops the SDK (after the drain). */
  shutdown(): Promise<void>;
}

/** Whether the environment asks for OTLP export (the standard variables), as `--otel` does. */
export function otelRequested(flag: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return flag || !!env.OTEL_EXPORTER_OTLP_ENDPOINT || !!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
}

/** The traces URL the OTLP HTTP exporter posts to, from the standard variables. */
export function tracesUrl(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT || OTEL_DEFAULTS.endpoint).replace(/\/+$/, '')}/v1/traces`;
}

/**
 * What asked for tracing, as the line for a missing package names it: the user of `startTracing()`
 * in their own server was told to fix an `--otel` they never typed.
 */
export const TRACING_ASKED_BY = {
  serve: 'Tracing (--otel)',
  startTracing: 'Tracing (startTracing() of hiwar/server)',
} as const;

/**
 * Throws `MissingDependencyError` when a tracing package is missing (`hiwar serve` asks before its
 * ports), naming `by`, what asked for tracing. `installed`: whether a package is (tests).
 */
export function checkOtelInstalled(by: string = TRACING_ASKED_BY.serve, installed: (pkg: OptionalPackage) => boolean = isInstalled): void {
  const missing = missingPackages(by, OTEL_PACKAGES, 'docs/observability.md', installed);
  if (missing) throw new MissingDependencyError(OTEL_PACKAGES.find((p) => missing.includes(p))!, missing);
}

/**
 * Registers the OpenTelemetry SDK for this process: a tracer provider that batches spans to an
 * OTLP HTTP endpoint, and async context. Throws `MissingDependencyError` (one line naming the npm
 * install) when a package is missing: `--otel` never quietly records nothing.
 */
export async function startOtel(env: NodeJS.ProcessEnv = process.env, o: { logger?: Logger; by?: string; installed?: (pkg: OptionalPackage) => boolean } = {}): Promise<OtelSetup> {
  checkOtelInstalled(o.by, o.installed);
  const [sdk, hooks, otlp] = await Promise.all([
    importOptional('@opentelemetry/sdk-trace', () => import('@opentelemetry/sdk-trace')),
    importOptional('@opentelemetry/context-async-hooks', () => import('@opentelemetry/context-async-hooks')),
    importOptional('@opentelemetry/exporter-trace-otlp-http', () => import('@opentelemetry/exporter-trace-otlp-http')),
  ]);
  const url = tracesUrl(env);
  const exporter = new otlp.OTLPTraceExporter({ url });
  const provider = new sdk.TracerProvider({
    resource: await serviceResource(env.OTEL_SERVICE_NAME || OTEL_DEFAULTS.serviceName),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter, scheduledDelayMillis: OTEL_DEFAULTS.scheduledDelayMillis })],
  });
  context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  const logger = o.logger ?? (await import('../session/logger.ts')).createLogger();
  const errors = sdkErrors(url, logger);
  diag.setLogger(errors.diag, DiagLogLevel.ERROR);
  return {
    url,
    shutdown: async () => {
      // The last batch failing is said like any other, and the drain goes on.
      await provider.shutdown().catch((err: unknown) => errors.report(err instanceof Error ? err.message : err));
      trace.disable();
      context.disable();
      diag.disable();
    },
  };
}

/**
 * The SDK's errors (a batch the collector refused or never took: its spans are lost) as a warn
 * line of the server's log, at most one per `errorLogEveryMs` with the count of those not
 * logged: without it a collector that is down loses every trace in silence.
 */
function sdkErrors(url: string, logger: Logger, everyMs: number = OTEL_DEFAULTS.errorLogEveryMs): { diag: DiagLogger; report(message: unknown): void } {
  let last = -Infinity;
  let unlogged = 0;
  const said = (message: unknown) => {
    const now = Date.now();
    if (now - last < everyMs) return void unlogged++;
    last = now;
    logger.warn({ url, err: errorText(message), ...(unlogged ? { notLogged: unlogged } : {}) }, 'tracing: the OpenTelemetry SDK failed (spans may be lost)');
    unlogged = 0;
  };
  const quiet = () => {};
  return { diag: { error: said, warn: quiet, info: quiet, debug: quiet, verbose: quiet }, report: said };
}

/**
 * The `service.name` resource. `@opentelemetry/resources` comes with the SDK (its dependency);
 * where it cannot be loaded the SDK's default resource (`unknown_service:node`) is used.
 */
async function serviceResource(name: string): Promise<import('@opentelemetry/sdk-trace').TracerProviderOptions['resource']> {
  try {
    const { defaultResource, resourceFromAttributes } = await import('@opentelemetry/resources');
    return defaultResource().merge(resourceFromAttributes({ 'service.name': name }));
  } catch {
    return undefined;
  }
}

/** The SDK hands its errors over as the JSON of the exception (stack and all): its message alone, short. */
function errorText(message: unknown): string {
  const text = String(message);
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed?.message === 'string') return parsed.message.slice(0, 300);
  } catch {
    // not JSON: the text as it came
  }
  return text.slice(0, 300);
}
