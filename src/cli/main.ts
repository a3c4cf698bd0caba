import { parseArgs } from 'node:util';

const USAGE = `hiwar: real-time Arabic voice agents

Usage:
  hiwar sandbox [--port 8787] [--host 127.0.0.1] [--keys FILE] [--uae-port N] [--phrasebook FILE]
      Serve a local stand-in of the voice service (HTTP, SSE and WebSockets on one port).
  hiwar help
`;

type Command = (args: string[]) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  sandbox: async () => (await import('./sandbox.ts')).sandboxCommand,
};

/** Entry point of the `hiwar` command; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`hiwar: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await (await load())(rest);
  } catch (err) {
    process.stderr.write(`hiwar ${name}: ${(err as Error).message}\n`);
    return 1;
  }
}

export { parseArgs };
