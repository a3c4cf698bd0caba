import { SERVER_LIMITS } from './limits.ts';

/**
 * Checks of the server's plain options, said before anything starts and naming the option: one
 * place for `createAgentServer`, a `hiwar serve --config` module and the CLI's `--public-url`.
 */

/** `text` as an absolute URL, or undefined when it is none. */
export function parsedUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Why `url` cannot be the address platforms reach the server at, or undefined when it can. */
export function publicUrlProblem(url: string): string | undefined {
  // A bare host ("agent.example.com") was taken as is and handed to the platform as
  // `agent.example.com/telephony/twilio/stream/…`, which no platform can open: the call failed there.
  const parsed = parsedUrl(url);
  const example = /^[\w.-]+(:\d+)?(\/|$)/.test(url) ? `https://${url.replace(/\/+$/, '')}` : 'https://agent.example.com';
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || !parsed.hostname) {
    return `must be an absolute http:// or https:// URL (${example}), got ${JSON.stringify(url)}`;
  }
  if (parsed.search || parsed.hash || parsed.username || parsed.password) return `must be a plain address with no query, fragment or credentials, got ${JSON.stringify(url)}`;
  return undefined;
}

const isWhole = (v: unknown, min: number, max: number) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/** The first of `port`, `maxCalls`, `publicUrl` and `limits` (where given) that is wrong, as `` `name` … ``. */
export function serverOptionProblem(o: { port?: unknown; maxCalls?: unknown; publicUrl?: unknown; limits?: unknown; serviceProbe?: unknown; modelProbe?: unknown }): string | undefined {
  // A config file's `port: '8080'` reached Node's listen, whose error named neither the option nor the file.
  if (o.port !== undefined && !isWhole(o.port, 0, 65535)) return `\`port\` must be a whole number from 0 to 65535, got ${JSON.stringify(o.port)}`;
  if (o.maxCalls !== undefined && !isWhole(o.maxCalls, 1, Infinity)) return `\`maxCalls\` must be a whole number from 1, got ${JSON.stringify(o.maxCalls)}`;
  if (o.publicUrl !== undefined) {
    const problem = typeof o.publicUrl === 'string' ? publicUrlProblem(o.publicUrl) : `must be a string, got ${JSON.stringify(o.publicUrl)}`;
    if (problem) return `\`publicUrl\` ${problem}`;
  }
  return probeProblem('serviceProbe', o.serviceProbe) ?? probeProblem('modelProbe', o.modelProbe) ?? (o.limits === undefined ? undefined : limitsProblem(o.limits));
}

/** A `notReadyOn` naming a state no probe has (`'down'`) would never take the instance out. */
function probeProblem(name: string, probe: unknown): string | undefined {
  const states = (probe as { notReadyOn?: unknown } | undefined)?.notReadyOn;
  if (states === undefined) return undefined;
  if (!Array.isArray(states) || states.some((s) => s !== 'unreachable' && s !== 'refused')) return `\`${name}.notReadyOn\` must be a list of 'unreachable' and 'refused', got ${JSON.stringify(states)}`;
  return undefined;
}

/**
 * A `limits` key no limit has (`headerTimeoutMs`) was ignored without a word, and a limit of
 * `'10s'` or -1 went on to Node's server options unchecked.
 */
function limitsProblem(limits: unknown): string | undefined {
  if (limits === null || typeof limits !== 'object' || Array.isArray(limits)) return `\`limits\` must be an object of SERVER_LIMITS' keys, got ${JSON.stringify(limits)}`;
  const names = Object.keys(SERVER_LIMITS);
  for (const [key, value] of Object.entries(limits)) {
    if (!names.includes(key)) return `\`limits.${key}\` is no limit of the server: ${names.join(', ')}`;
    if (!isWhole(value, 1, 2_147_483_647)) return `\`limits.${key}\` must be a whole number of milliseconds from 1, got ${JSON.stringify(value)}`;
  }
  return undefined;
}
