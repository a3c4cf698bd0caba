import type pino from 'pino';
import { lazyRequire } from '../lazy-require.ts';

/** pino (about 30 files with its own dependencies), loaded with the first logger. */
const pinoModule = lazyRequire<typeof pino>('pino');

/** How log records are written: pino's JSON lines (a log collector), or one readable line each (a terminal). */
export type LogFormat = 'json' | 'text';

/** Options of `createLogger`. */
export interface LoggerOptions {
  /**
   * `json`: pino's JSON lines, one record each, for a log collector. `text`: one readable line per
   * record, as the `hiwar` commands print (`12:04:05 warn message (field=value, …)`).
   * @default 'json'
   */
  format?: LogFormat;
  /** Where the lines go (anything with `write(line)`). @default stderr */
  destination?: pino.DestinationStream;
}

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

/** The format `HIWAR_LOG_FORMAT` asks for (`text` or `json`), else `fallback`; anything else throws, naming the variable. */
export function logFormatFromEnv(fallback: LogFormat, env: NodeJS.ProcessEnv = process.env): LogFormat {
  const format = env.HIWAR_LOG_FORMAT || fallback;
  if (format !== 'text' && format !== 'json') throw new Error(`HIWAR_LOG_FORMAT must be "text" or "json", got "${format}"`);
  return format;
}

/**
 * Structured logs. Keys are redacted wherever they could appear, by field name; the service
 * client never puts them into messages. `createLogger('debug')` writes pino's JSON lines to
 * stderr; `createLogger('debug', { format: 'text' })` the readable lines the `hiwar` commands
 * print. The second argument may also be the destination itself (JSON lines to it).
 */
export function createLogger(level = 'warn', out: pino.DestinationStream | LoggerOptions = {}): pino.Logger {
  const o: LoggerOptions = typeof (out as pino.DestinationStream).write === 'function' ? { destination: out as pino.DestinationStream } : (out as LoggerOptions);
  const format = o.format ?? 'json';
  if (format !== 'json' && format !== 'text') throw new TypeError(`createLogger: format must be "json" or "text", got ${JSON.stringify(format)}`);
  const destination = o.destination ?? pinoModule().destination(2);
  return pinoModule()(
    {
      level,
      base: { app: 'hiwar' },
      redact: {
        paths: ['apiKey', '*.apiKey', 'key', '*.key', 'headers["x-api-key"]', '*.headers["x-api-key"]', 'authorization', '*.authorization', 'config.apiKey'],
        censor: '[redacted]',
      },
    },
    format === 'text' ? { write: (line: string) => destination.write(formatLogLine(line)) } : destination,
  );
}

export type Logger = pino.Logger;
