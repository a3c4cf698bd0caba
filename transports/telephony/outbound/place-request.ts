/**
 * A request to place a call, checked before anything is dialled: the numbers, the platform, the
 * variables and the reference, each refused with a message that says what to give.
 */
import type { PlaceCallRequest } from './outbound-call.ts';
import { E164, type OutboundPlatform, type OutboundPlatformName } from './types.ts';

/** A request to place a call that is wrong as given (bad number, unknown platform, missing variable): nothing was dialled. */
export class PlaceCallError extends Error {
  override readonly name = 'PlaceCallError';
}

const NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/**
 * The request as it will be placed, or a `PlaceCallError`. `o`: the registry's platforms and its
 * defaults; `limits`: `OUTBOUND_DEFAULTS`' (the caller passes them: that module imports this one).
 */
export function checkPlaceRequest(
  req: PlaceCallRequest,
  o: { platforms: Partial<Record<OutboundPlatformName, OutboundPlatform>>; from?: string; platform?: OutboundPlatformName },
  limits: { maxVariables: number; maxValueLength: number },
) {
  if (!req || typeof req !== 'object') throw new PlaceCallError('a call needs {"to": "+9665…"}');
  const to = String(req.to ?? '');
  if (!E164.test(to)) throw new PlaceCallError(`"to" must be an E.164 number (+ then 8 to 15 digits), got "${to}"`);
  // An empty setting is no setting (HIWAR_CALL_FROM= or HIWAR_CALL_PLATFORM= in an environment), as the CLI's checks read it.
  const from = String(req.from || o.from || '');
  if (!E164.test(from)) throw new PlaceCallError(from ? `"from" must be an E.164 number, got "${from}"` : 'no caller ID: give "from" (or set HIWAR_CALL_FROM)');
  const names = Object.keys(o.platforms) as OutboundPlatformName[];
  const platform = req.platform || o.platform || (names.length === 1 ? names[0] : undefined);
  if (!platform) throw new PlaceCallError(names.length ? `several platforms are configured (${names.join(', ')}): say which ("platform")` : "no platform is configured for outbound calls (hiwar's docs/outbound.md)");
  const client = o.platforms[platform];
  if (!client) throw new PlaceCallError(`platform "${platform}" is not configured for outbound calls${names.length ? ` (configured: ${names.join(', ')})` : ''}`);
  const variables: Record<string, string> = {};
  const given = req.variables ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) throw new PlaceCallError('"variables" must be an object of name → text');
  const entries = Object.entries(given);
  if (entries.length > limits.maxVariables) throw new PlaceCallError(`at most ${limits.maxVariables} variables`);
  for (const [k, v] of entries) {
    if (!NAME.test(k)) throw new PlaceCallError(`variable name "${k}": letters, digits and _ only, not starting with a digit`);
    if (typeof v !== 'string' && typeof v !== 'number') throw new PlaceCallError(`variable "${k}" must be text`);
    if (String(v).length > limits.maxValueLength) throw new PlaceCallError(`variable "${k}" is longer than ${limits.maxValueLength} characters`);
    variables[k] = String(v);
  }
  const reference = req.reference === undefined ? undefined : String(req.reference);
  if (reference !== undefined && !/^[\w:.-]{1,200}$/.test(reference)) throw new PlaceCallError('"reference": letters, digits, _ : . - (at most 200)');
  return { platform, client, from, to, variables, reference };
}
