import { CliError, numberOption, parseCommand, readText } from './args.ts';
import { keepVoicedLines } from '../sandbox/voiced-lines.ts';
import { untilStopped } from './stop.ts';

export const SANDBOX_USAGE = `Usage: hiwar sandbox [--port 8787] [--host 127.0.0.1] [--keys FILE] [--uae-port N] [--phrasebook FILE]
                    [--ahead-limit S] [--listen-idle S]

Serves a local stand-in of the voice service (HTTP, SSE and WebSockets on one port) until Ctrl-C
(or SIGTERM, or the end of the npm process that started it: npx hiwar sandbox).
Clients send the key in the x-api-key header, as with the real service.

Options:
  --port N           port of the global region (default 8787; 0 picks a free one)
  --host ADDR        address to listen on (default 127.0.0.1)
  --keys FILE        the keys to accept, a JSON array (default: one generated key, printed):
                       [{"key": "sk-…", "region": "global", "credits": 1000000,
                         "concurrency": 4, "allow": ["/listen", "/text-to-speech"]}]
                     key: at least 8 characters; region: global or uae; credits: 0 or more
                     (0 answers 402, an empty wallet); concurrency: a whole number from 1;
                     allow: endpoint path prefixes (absent: every endpoint). Errors name the
                     entry by its position, counted from 0.
  --uae-port N       also serve the UAE region on its own port (always under /uae/api/v1)
  --phrasebook FILE  phrases the recognizer knows from the start, one per line (it also knows
                     everything it has voiced itself)
  --ahead-limit S    /listen closes 4008 when audio runs more than S seconds ahead of real time
                     (default 60, as the service; raise it to stream files as fast as they decode)
  --listen-idle S    /listen closes 1011 after S seconds without audio or KeepAlive (default 12,
                     as the service)
  -h, --help         this text
`;

/** `hiwar sandbox`: serves until interrupted. */
export async function sandboxCommand(args: string[]): Promise<number> {
  const values = parseCommand(
    args,
    {
      port: { type: 'string', default: '8787' },
      host: { type: 'string', default: '127.0.0.1' },
      keys: { type: 'string' },
      'uae-port': { type: 'string' },
      phrasebook: { type: 'string' },
      'ahead-limit': { type: 'string' },
      'listen-idle': { type: 'string' },
    },
    SANDBOX_USAGE,
  );
  if (!values) return 0;
  const port = numberOption('port', values.port, 0, 65535, SANDBOX_USAGE, true);
  const uaePort = values['uae-port'] === undefined ? undefined : numberOption('uae-port', values['uae-port'], 0, 65535, SANDBOX_USAGE, true);
  // The service's /listen limits by default; a user streaming files or driving a slow client lifts them.
  const timing: { aheadLimitS?: number; listenIdleMs?: number } = {};
  if (values['ahead-limit'] !== undefined) timing.aheadLimitS = numberOption('ahead-limit', values['ahead-limit'], 1, 1e6, SANDBOX_USAGE);
  if (values['listen-idle'] !== undefined) timing.listenIdleMs = 1000 * numberOption('listen-idle', values['listen-idle'], 0.1, 1e6, SANDBOX_USAGE);
  const keysText = values.keys ? await readText(values.keys, '--keys') : undefined;
  // The sandbox's modules only once the command line is known good (see demo.ts).
  const keys = keysText === undefined ? undefined : (await import('../sandbox/keys.ts')).parseKeysFile(keysText);
  if (keys && keys.length === 0) throw new CliError(`--keys ${values.keys}: the file lists no keys`);
  const phrasebook = values.phrasebook
    ? (await readText(values.phrasebook, '--phrasebook')).split('\n').map((l) => l.trim()).filter(Boolean)
    : undefined;
  const { startSandbox } = await import('../sandbox/index.ts');
  await keepVoicedLines();
  const sandbox = await startSandbox({
    port,
    host: values.host,
    keys,
    uaePort,
    phrasebook,
    timing,
    log: (m) => process.stderr.write(`${m}\n`),
    warmUp: true,
  });
  process.stdout.write(`hiwar sandbox serving ${sandbox.url} (UAE region: ${sandbox.uaeUrl})\n`);
  if (!keys) {
    // A generated key for local use only; printing it is how the user learns it.
    process.stdout.write(`API key: ${sandbox.keys[0]!.key}\n`);
    process.stdout.write(`Use it: HIWAR_BASE_URL=${sandbox.url} HIWAR_API_KEY=${sandbox.keys[0]!.key} npx hiwar demo (or, in a clone of the repository, an example from examples/)\n`);
  } else {
    process.stdout.write(`${keys.length} key(s) loaded from ${values.keys}\n`);
    process.stdout.write(`Use it: HIWAR_BASE_URL=${sandbox.url} HIWAR_API_KEY=<a key of ${values.keys}> npx hiwar demo (or, in a clone of the repository, an example from examples/)\n`);
  }
  if (phrasebook) process.stdout.write(`${phrasebook.length} phrase(s) of ${values.phrasebook} recognizable from the start\n`);
  process.stdout.write('The sandbox recognizes only phrases it has voiced or that are in its phrasebook, and the digits, نعم, لا and موافق in anyone\'s voice.\n');
  // Until Ctrl-C, SIGTERM, or the npm process that started it (`npx hiwar sandbox`) going away.
  const why = await untilStopped('sandbox');
  process.stdout.write(`${why}: stopping the sandbox\n`);
  await sandbox.close();
  return 0;
}
