import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A free port for a process the test starts and tells a port (a server, Redis). Taken below the
 * kernel's ephemeral range, where nothing that binds port 0 is given one: a port from that range
 * was seen taken by another process's port-0 bind in the seconds before the test's process bound
 * it (a full run starts many servers at once). Where the range cannot be read, the kernel picks.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  if (low !== undefined && low > 12_000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
      if (await bindable(port)) return port;
    }
  }
  return listenOn(0);
}

function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}

const bindable = (port: number): Promise<boolean> => listenOn(port).then(() => true, () => false);

function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => {
      const { port: bound } = s.address() as { port: number };
      s.close(() => resolve(bound));
    });
  });
}

/** A port held taken on 127.0.0.1 (a server listening on it) until `release()`. */
export async function takenPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const s = createServer();
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', resolve);
  });
  return { port: (s.address() as { port: number }).port, release: () => new Promise<void>((r) => s.close(() => r())) };
}
