// @opentelemetry/api (44 files), loaded by the first trace or traceparent hiwar handles rather
// than by `import 'hiwar'` (src/lazy-require.ts). The API keeps its registered tracer on the
// global object, so every copy of it sees the same one.
import type * as Otel from '@opentelemetry/api';
import { lazyRequire } from '../lazy-require.ts';

/** The `@opentelemetry/api` module, loaded on first use. */
export const otel = lazyRequire<typeof Otel>('@opentelemetry/api');
