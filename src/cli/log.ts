import { createLogger, logFormatFromEnv, type LogFormat, type Logger } from '../session/logger.ts';
import { CliError } from './args.ts';

export { formatLogLine } from '../session/logger.ts';

/**
 * The CLI's logger: one readable line per record on stderr, or pino's JSON lines with
 * HIWAR_LOG_FORMAT=json (for a log collector). Level from HIWAR_LOG_LEVEL, else `level`.
 */
export function cliLogger(level: string, env: NodeJS.ProcessEnv = process.env, write: (s: string) => void = (s) => void process.stderr.write(s)): Logger {
  let format: LogFormat;
  try {
    format = logFormatFromEnv('text', env);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const chosen = env.HIWAR_LOG_LEVEL || level;
  if (format === 'json') return createLogger(chosen);
  return createLogger(chosen, { format: 'text', destination: { write } });
}
