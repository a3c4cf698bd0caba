/**
 * A worker of test/sandbox/cluster.test.ts: starts an embedded sandbox on port 0, as each worker
 * of `hiwar serve --workers N` does, tells the primary its URL and key, and waits to be stopped.
 */
import { startSandbox } from '../../src/sandbox/index.ts';

const sandbox = await startSandbox({ port: 0 });
process.send!({ url: sandbox.url, key: sandbox.keys[0]!.key });
process.once('disconnect', () => void sandbox.close().then(() => process.exit(0)));
