import { KEY_REFUSED_HINT } from '../errors.ts';

/**
 * What a WebSocket close means for the caller. Pure, so the mapping is testable by table.
 * 1008 covers authentication, the session limit and an empty wallet: the last Error message
 * before the close tells them apart.
 */
export type CloseKind =
  | 'normal'
  | 'unauthorized'
  | 'insufficient_balance'
  | 'rate_limited'
  | 'server_error'
  | 'bad_parameter'
  | 'too_far_ahead'
  | 'dropped';

/** Why a socket of the service closed, as a kind and whether a retry may help. */
export interface CloseInfo {
  code: number;
  reason: string;
  kind: CloseKind;
  /** Reconnecting may help (1011 internal or idle, a dropped connection). */
  retryable: boolean;
  /** What to do, when the service's words leave it unsaid: a refused key names where it is set. */
  hint?: string;
}

/** Classifies a socket's close code and reason into a `CloseInfo`. */
export function classifyClose(code: number, reason: string, lastError?: string): CloseInfo {
  const text = `${reason} ${lastError ?? ''}`.toLowerCase();
  let kind: CloseKind;
  if (code === 1000 || code === 1005) kind = 'normal';
  else if (code === 1008) {
    if (/wallet|balance|credit/.test(text)) kind = 'insufficient_balance';
    else if (/limit|concurren/.test(text)) kind = 'rate_limited';
    else kind = 'unauthorized';
  } else if (code === 1011) kind = 'server_error';
  else if (code === 4002) kind = 'bad_parameter';
  else if (code === 4008) kind = 'too_far_ahead';
  else kind = 'dropped';
  const info: CloseInfo = { code, reason, kind, retryable: kind === 'server_error' || kind === 'dropped' };
  if (kind === 'unauthorized') info.hint = KEY_REFUSED_HINT;
  return info;
}
