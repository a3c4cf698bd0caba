import { createLogger, type Logger } from '../session/logger.ts';
import { CliError } from './args.ts';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
/** Fields every line carries that a person reading the terminal does not need. */
const HIDDEN = new Set(['level', 'time', 'msg', 'app', 'pid', 'hostname']);

/**
 * One pino JSON line as a person reads it: `12:04:05 warn message (field=value, …)`. Keys were
 * already redacted by the logger; a line that is not JSON passes through unchanged.
 */
export function formatLogLine(line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString().slice(11, 19) : '';
  const level = LEVELS[rec.level as number] ?? String(rec.level ?? '');
  const fields = Object.entries(rec)
    .filter(([k, v]) => !HIDDEN.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return `${[time, level, String(rec.msg ?? '')].filter(Boolean).join(' ')}${fields.length ? ` (${fields.join(', ')})` : ''}\n`;
}

/**
 * The CLI's logger: one readable line per record on stderr, or pino's JSON lines with
 * HIWAR_LOG_FORMAT=json (for a log collector). Level from HIWAR_LOG_LEVEL, else `level`.
 */
export function cliLogger(level: string, env: NodeJS.ProcessEnv = process.env, write: (s: string) => void = (s) => void process.stderr.write(s)): Logger {
  const format = env.HIWAR_LOG_FORMAT || 'text';
  if (format !== 'text' && format !== 'json') throw new CliError(`HIWAR_LOG_FORMAT must be "text" or "json", got "${format}"`);
  const chosen = env.HIWAR_LOG_LEVEL || level;
  if (format === 'json') return createLogger(chosen);
  return createLogger(chosen, { write: (line: string) => write(formatLogLine(line)) });
}
