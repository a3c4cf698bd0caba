import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseKeysFile, startSandbox } from '../sandbox/index.ts';

/** `hiwar sandbox`: serves until interrupted. */
export async function sandboxCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '8787' },
      host: { type: 'string', default: '127.0.0.1' },
      keys: { type: 'string' },
      'uae-port': { type: 'string' },
      phrasebook: { type: 'string' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, got ${values.port}`);
  const keys = values.keys ? parseKeysFile(await readFile(values.keys, 'utf8')) : undefined;
  const phrasebook = values.phrasebook
    ? (await readFile(values.phrasebook, 'utf8')).split('\n').map((l) => l.trim()).filter(Boolean)
    : undefined;
  const sandbox = await startSandbox({
    port,
    host: values.host,
    keys,
    uaePort: values['uae-port'] ? Number(values['uae-port']) : undefined,
    phrasebook,
    log: (m) => process.stderr.write(`${m}\n`),
  });
  process.stdout.write(`hiwar sandbox serving ${sandbox.url} (UAE region: ${sandbox.uaeUrl})\n`);
  if (!keys) {
    // A generated key for local use only; printing it is how the user learns it.
    process.stdout.write(`API key: ${sandbox.keys[0]!.key}\n`);
  } else {
    process.stdout.write(`${keys.length} key(s) loaded from ${values.keys}\n`);
  }
  process.stdout.write('The sandbox recognizes only phrases it has voiced or that are in its phrasebook.\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sandbox.close();
  return 0;
}
