import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { docsHelpLine } from '../docs-path.ts';
import { publicUrlProblem } from '../server/option-checks.ts';

/** A wrong command line: the CLI prints the message and the command's usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(message: string, readonly usage: string) {
    super(message);
  }
}

/** A failure the user can act on: printed as one line, no stack trace, exit 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

type Options = NonNullable<ParseArgsConfig['options']>;
/** What `parseCommand` returns for the options `O`. */
export type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'];

/**
 * Parses a subcommand's options strictly. Returns `undefined` after printing the usage when
 * asked for help (`-h`, `--help`); a wrong option or a stray argument throws `UsageError`.
 */
export function parseCommand<const O extends Options>(args: string[], options: O, usage: string): Values<O> | undefined {
  const all = { ...options, help: { type: 'boolean', short: 'h' } } as const;
  let parsed;
  try {
    parsed = parseArgs({ args, options: all, strict: true, allowPositionals: false });
  } catch (err) {
    // node's messages end with advice about '--' that does not apply to these commands.
    throw new UsageError((err as Error).message.replace(/\s*To specify a positional argument.*$/s, ''), usage);
  }
  if ((parsed.values as { help?: boolean }).help) {
    // The pages a help text names, where this machine has them (docs-path.ts).
    process.stdout.write(`${usage}${docsHelpLine(usage)}`);
    return undefined;
  }
  return parsed.values as Values<O>;
}

/**
 * A number option within [min, max], with the range in the message when it is not. `name` is a
 * flag's without its dashes, or an environment variable's (upper case: said as itself, since
 * there is no such flag to give).
 */
export function numberOption(name: string, raw: string, min: number, max: number, usage: string, integer = false): number {
  const v = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    const named = /^[A-Z][A-Z0-9_]*$/.test(name) ? name : `--${name}`;
    throw new UsageError(`${named} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${raw}"`, usage);
  }
  return v;
}

/** A file's text, or a one-line error naming the option. */
export async function readText(path: string, option: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new CliError(`${option} ${path}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
}

/**
 * Makes sure files can be written in `dir` before a server starts on the promise of writing
 * there (they were first written at the end of the first call): the folder is made if missing,
 * and a file is written in it and removed, so a read-only mount or an ACL is found as well as the
 * mode bits. Throws a CliError that begins with `named` (the flag or variable and its value).
 */
export async function ensureWritableFolder(dir: string, named: string): Promise<void> {
  const probe = join(dir, `.hiwar-write-check-${randomUUID()}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, '');
  } catch (err) {
    throw new CliError(`${named}: files cannot be written there: ${await unwritableWhy(dir, err as NodeJS.ErrnoException)}`);
  }
  await rm(probe, { force: true });
}

/** Why a folder could not be made or written in: the file in its path, or the system's reason. */
async function unwritableWhy(dir: string, err: NodeJS.ErrnoException): Promise<string> {
  if (err.code === 'EEXIST' || err.code === 'ENOTDIR') {
    // The nearest part of the path that exists is a file, not a folder.
    for (let p = resolve(dir); ; p = dirname(p)) {
      const found = await stat(p).catch(() => undefined);
      if (found && !found.isDirectory()) return `${p} is a file, not a folder`;
      if (found || dirname(p) === p) break;
    }
  }
  if (err.code === 'EACCES' || err.code === 'EPERM') return `permission denied (${err.syscall ?? 'write'} ${err.path ?? dir}) for the user this process runs as`;
  if (err.code === 'EROFS') return 'the file system is read-only';
  return err.message;
}

/**
 * The address platforms reach this process at: `--public-url`, else HIWAR_PUBLIC_URL (undefined
 * when neither is given); a value that is not an absolute http(s) URL is refused, naming where it came from.
 */
export function publicUrlOption(flag: string | undefined, usage: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = flag ?? (env.HIWAR_PUBLIC_URL || undefined);
  const problem = url === undefined ? undefined : publicUrlProblem(url);
  if (problem) throw new UsageError(`${flag !== undefined ? '--public-url' : 'HIWAR_PUBLIC_URL'} ${problem}`, usage);
  return url;
}
