/**
 * `hiwar serve` checks every argument before it touches a port or starts anything: with the port
 * taken, a bad value is still what it says (the guide: bad input gets a clear error, loses nothing).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { takenPort } from '../helpers/ports.ts';
import { hiwar } from '../analytics/harness.ts';

const ENV = { HIWAR_API_KEY: '', REDIS_URL: '', HIWAR_LOG_LEVEL: 'warn' };
let taken: Awaited<ReturnType<typeof takenPort>>;
let port: number;

before(async () => {
  taken = await takenPort();
  port = taken.port;
});
after(() => taken.release());

/** Runs `hiwar serve --port <taken> ...args` to its end: its exit code and what it printed. */
async function serveOnTakenPort(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  const child = hiwar(['serve', '--port', String(port), ...args], { ...ENV, ...env });
  const code = child.process.exitCode ?? (await new Promise<number | null>((r) => child.process.once('exit', r)));
  return { code, out: child.output() };
}

const cases: { args: string[]; env?: NodeJS.ProcessEnv; says: RegExp }[] = [
  { args: ['--workers', '0'], says: /--workers must be a whole number from 1 to 256/ },
  { args: ['--workers', 'many'], says: /--workers must be a whole number from 1 to 256 or "auto", got "many"/ },
  { args: ['--key-sessions', '0'], env: { REDIS_URL: 'redis://127.0.0.1:1' }, says: /--key-sessions/ },
  { args: ['--queue-wait-ms', 'soon'], env: { REDIS_URL: 'redis://127.0.0.1:1' }, says: /--queue-wait-ms/ },
  { args: ['--agent', '/nonexistent/agent.ts'], says: /--agent \/nonexistent\/agent\.ts: no such file or folder/ },
  { args: ['--phrasebook', '/nonexistent/phrases.txt'], says: /--phrasebook \/nonexistent\/phrases\.txt: no such file/ },
  // Tracing asked for with its packages missing (a preload hides them).
  { args: ['--otel'], env: { NODE_OPTIONS: `--require ${new URL('../helpers/no-otel-sdk.cjs', import.meta.url).pathname}` }, says: /Tracing \(--otel\) needs @opentelemetry\/sdk-trace/ },
];

for (const c of cases) {
  test(`with the port taken, ${c.args.join(' ')} is the error`, async () => {
    const { code, out } = await serveOnTakenPort(c.args, c.env);
    assert.notEqual(code, 0);
    assert.match(out, c.says);
    assert.doesNotMatch(out, /already taken/);
    assert.doesNotMatch(out, /starting the embedded sandbox/, 'nothing started');
  });
}

test('good arguments on a taken port: the port is the error, before the sandbox starts', async () => {
  const { code, out } = await serveOnTakenPort(['--workers', '2']);
  assert.notEqual(code, 0);
  assert.match(out, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already taken`));
  assert.doesNotMatch(out, /starting the embedded sandbox/);
});
