import { createRequire } from 'node:module';
import type pino from 'pino';

// pino (about 30 files with its own dependencies) loads with the first logger, not with
// `import 'hiwar'` (docs/testing.md, "Start-up"); the same CommonJS module an import would give.
let loaded: typeof pino | undefined;
const pinoModule = (): typeof pino => (loaded ??= createRequire(import.meta.url)('pino') as typeof pino);

/**
 * Structured logs. Keys are redacted wherever they could appear, by field name; the service
 * client never puts them into messages. The CLI takes the level from HIWAR_LOG_LEVEL.
 */
export function createLogger(level = 'warn', destination: pino.DestinationStream = pinoModule().destination(2)): pino.Logger {
  return pinoModule()(
    {
      level,
      base: { app: 'hiwar' },
      redact: {
        paths: ['apiKey', '*.apiKey', 'key', '*.key', 'headers["x-api-key"]', '*.headers["x-api-key"]', 'authorization', '*.authorization', 'config.apiKey'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

export type Logger = pino.Logger;
