import { AuthenticationError, InsufficientBalanceError, PermissionDeniedError, TransportError } from '../service/errors.ts';

/** An error's message, first line only (a CLI says one line; stacks and causes follow it). */
export const firstLine = (err: unknown): string => String((err as Error)?.message ?? err).split('\n')[0] ?? '';

/**
 * One line a user can act on for the failures they meet first (a wrong key, an empty wallet,
 * no network); anything else is its own message's first line. Never includes the key.
 */
export function explainError(err: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const message = firstLine(err);
  // Its own hint is said here the CLI's way (the region asked, the sandbox without a key).
  if (err instanceof AuthenticationError) return `the service refused the key (${err.hint ? message.replace(`: ${err.hint}`, '') : message}): check HIWAR_API_KEY (${regionHint(env)}), or unset it to use the local sandbox`;
  if (err instanceof InsufficientBalanceError) return `the account's wallet is empty (${message}): top it up in the service's console`;
  if (err instanceof PermissionDeniedError) return `the key may not use this endpoint (${message})`;
  if (err instanceof TransportError && err.kind === 'network') return `cannot reach the service (${message}): check the network, HIWAR_BASE_URL and HIWAR_REGION`;
  // `flag`: the option that chose the port, where the caller knows it (ensurePortsFree).
  const listen = err as NodeJS.ErrnoException & { address?: string; port?: number; flag?: string };
  if (listen?.code === 'EADDRINUSE' && listen.syscall === 'listen') {
    return `port ${listen.port} on ${listen.address} is already taken (by another hiwar?): choose another (${listen.flag ?? '--port'} N; 0 takes a free one)`;
  }
  return message;
}

/**
 * Keys belong to the region whose dashboard issued them, and the other region answers them as it
 * answers a wrong key (401 40101, docs/service.md): the one thing the service cannot say is
 * which region the key is from, so the hint names the region asked and how to ask the other.
 */
export function regionHint(env: NodeJS.ProcessEnv = process.env): string {
  return env.HIWAR_REGION === 'uae'
    ? 'asked in the UAE region, HIWAR_REGION=uae: a global key needs HIWAR_REGION unset'
    : 'asked in the global region: a key issued in the UAE region needs HIWAR_REGION=uae';
}
