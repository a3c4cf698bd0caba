import type pino from 'pino';
import { lazyRequire } from '../lazy-require.ts';

/** pino (about 30 files with its own dependencies), loaded with the first logger. */
const pinoModule = lazyRequire<typeof pino>('pino');

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
