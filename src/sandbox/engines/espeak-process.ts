/**
 * Runs espeak-ng, one process per voicing, started by a small shell this process keeps rather
 * than by this process itself. Starting a process copies the parent's page tables: from a Node
 * process holding the sandbox (onnxruntime, the recognizer: some 300–400 MB) each start cost about
 * 9 ms of CPU against about 1 ms from a small one, and a sandbox that voices its phrases starts
 * espeak-ng once per word. The shell (`/bin/sh`, a few hundred KB) starts each espeak-ng in the
 * background, writes its audio and errors to files in a directory of its own and says when it is
 * done; where no shell can be started, espeak-ng is started directly, as before.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface EspeakRun {
  code: number | null;
  out: Buffer;
  err: string;
  /** espeak-ng was not found on the PATH. */
  missing?: boolean;
}

const SHELL = '/bin/sh';
/**
 * Reads one command a line and runs it; at the end of its input (its parent gone) it waits for
 * what runs and exits. Its directory goes with it, also when it is ended by a signal (a process
 * group stopped at once).
 */
const SHELL_SCRIPT = `D="$1"; trap 'rm -rf "$D"' EXIT; trap 'exit 1' HUP INT TERM; while IFS= read -r l; do eval "$l"; done; wait`;
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface Shell {
  child: ChildProcess;
  dir: string;
  pending: Map<number, (code: number | null) => void>;
}

let shell: Shell | undefined;
let shellUnavailable = false;
let nextId = 0;

function startShell(): Shell | undefined {
  if (shellUnavailable) return undefined;
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), 'hiwar-espeak-'));
  } catch {
    shellUnavailable = true;
    return undefined;
  }
  const child = spawn(SHELL, ['-c', SHELL_SCRIPT, 'sh', dir], { stdio: ['pipe', 'pipe', 'ignore'] });
  const s: Shell = { child, dir, pending: new Map() };
  const fail = () => {
    if (shell === s) shell = undefined;
    for (const done of s.pending.values()) done(null);
    s.pending.clear();
    void rm(dir, { recursive: true, force: true });
  };
  child.on('error', () => {
    shellUnavailable = true;
    fail();
  });
  child.on('exit', fail);
  child.stdin!.on('error', () => {}); // a shell that died: its 'exit' answers what was pending
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const [id, code] = line.split(' ').map(Number);
    const done = s.pending.get(id!);
    if (!done) return;
    s.pending.delete(id!);
    idle(s);
    done(Number.isInteger(code) ? code! : null);
  });
  idle(s);
  return s;
}

/** The shell keeps no process alive while it has nothing to do. */
function idle(s: Shell): void {
  const sockets = [s.child.stdin, s.child.stdout] as unknown as { ref(): void; unref(): void }[];
  if (s.pending.size) {
    s.child.ref();
    for (const x of sockets) x.ref();
  } else {
    s.child.unref();
    for (const x of sockets) x.unref();
  }
}

async function throughShell(s: Shell, args: string[]): Promise<EspeakRun | undefined> {
  const id = nextId++;
  const [wav, errFile] = [join(s.dir, `${id}.wav`), join(s.dir, `${id}.err`)];
  // The PATH of this process now: the shell was started with the PATH of its start.
  const command = `(PATH=${quote(process.env.PATH ?? '')} espeak-ng ${args.map(quote).join(' ')} >${quote(wav)} 2>${quote(errFile)}; echo "${id} $?") &`;
  const code = await new Promise<number | null>((resolve) => {
    s.pending.set(id, resolve);
    idle(s);
    s.child.stdin!.write(`${command}\n`);
  });
  if (code === null) return undefined; // the shell went away: started directly instead
  const [out, err] = await Promise.all([readFile(wav).catch(() => Buffer.alloc(0)), readFile(errFile, 'utf8').catch(() => '')]);
  void rm(wav, { force: true });
  void rm(errFile, { force: true });
  // 127: the shell found no espeak-ng on the PATH.
  return { code, out, err, ...(code === 127 ? { missing: true } : {}) };
}

function directly(args: string[]): Promise<EspeakRun> {
  return new Promise((resolve) => {
    const child = spawn('espeak-ng', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', (e: NodeJS.ErrnoException) => resolve({ code: null, out: Buffer.alloc(0), err: e.message, ...(e.code === 'ENOENT' ? { missing: true } : {}) }));
    child.on('close', (code) => resolve({ code, out: Buffer.concat(out), err }));
  });
}

/** One run of espeak-ng with these arguments: its exit code, its standard output and error. */
export async function runEspeakProcess(args: string[]): Promise<EspeakRun> {
  shell ??= startShell();
  const s = shell;
  return (s && (await throughShell(s, args))) ?? directly(args);
}
