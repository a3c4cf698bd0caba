import { DEFAULT_MODELS, type DefaultModels, type ModelIds } from './models.ts';

/** Where the client connects and how it authenticates. */
export type Region = 'global' | 'uae';

/**
 * How a WebSocket carries the key; the spec allows different forms per socket.
 * `query+message` sends it both as a query parameter and inside the first message (what the
 * real clients of the TTS socket do).
 */
export type WsAuthMode = 'header' | 'query' | 'bearer' | 'message' | 'token' | 'query+message';

/** What `new ServiceClient(…)` takes; every field falls back to its environment variable, then its default. */
export interface ServiceConfigInput {
  apiKey?: string;
  region?: Region;
  /** Base URL of the global region, ending in /api/v1. */
  baseUrl?: string;
  /** Base URL of the UAE region, ending in /api/v1. */
  uaeBaseUrl?: string;
  /** Default per-request timeout in milliseconds (0 = none). */
  timeoutMs?: number;
  /** Retries for idempotent calls on 429 and 5xx. */
  maxRetries?: number;
  /** Base delay of the exponential backoff. */
  retryBaseMs?: number;
  /** Replaceable for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Which naming the default model ids follow (env HIWAR_MODEL_IDS). @default 'vendor' */
  modelIds?: ModelIds;
  /** Default model ids, overriding the naming's (env HIWAR_STT_MODEL, HIWAR_TTS_MODEL). */
  models?: Partial<DefaultModels>;
}

/** The client's settings once resolved from the options, the environment and the defaults. */
export interface ServiceConfig {
  apiKey: string | undefined;
  region: Region;
  baseUrl: string;
  wsBaseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  /** The `fetch` the client uses (the global one unless given). */
  fetch: typeof fetch;
  /** Model ids sent when a call names none. */
  models: DefaultModels;
}

// The vendor's hosts are not named in the spec; a user of the real service sets them once.
/** The global region's base URL when neither `baseUrl` nor `HIWAR_BASE_URL` is set. */
export const DEFAULT_BASE_URL = 'https://api.example-voice.ai/api/v1';
/** The UAE region's base URL when neither `uaeBaseUrl` nor `HIWAR_UAE_BASE_URL` is set. */
export const DEFAULT_UAE_BASE_URL = 'https://uae.api.example-voice.ai/api/v1';

/** The client's settings are wrong (a bad region, URL or number); the message names the setting. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

function parseRegion(value: string | undefined): Region | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'global' || value === 'uae') return value;
  throw new ConfigError(`region must be "global" or "uae", got "${value}"`);
}

/** http(s) → ws(s), keeping host, port and path. */
export function toWsUrl(httpUrl: string): string {
  const url = new URL(httpUrl);
  if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol === 'http:') url.protocol = 'ws:';
  else throw new ConfigError(`base URL must be http or https, got ${url.protocol}`);
  return url.toString().replace(/\/$/, '');
}

function parseModelIds(value: string | undefined): ModelIds | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'vendor' || value === 'spec') return value;
  throw new ConfigError(`model ids must be "vendor" or "spec", got "${value}"`);
}

/** The one place default model ids are decided: option, then environment, then the naming's. */
export function resolveModels(input: Pick<ServiceConfigInput, 'modelIds' | 'models'> = {}, env: NodeJS.ProcessEnv = process.env): DefaultModels {
  const naming = DEFAULT_MODELS[input.modelIds ?? parseModelIds(env.HIWAR_MODEL_IDS) ?? 'vendor'];
  return {
    stt: input.models?.stt ?? (env.HIWAR_STT_MODEL || naming.stt),
    tts: input.models?.tts ?? (env.HIWAR_TTS_MODEL || naming.tts),
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * Options win over the environment (HIWAR_API_KEY, HIWAR_BASE_URL, HIWAR_UAE_BASE_URL,
 * HIWAR_REGION, HIWAR_MODEL_IDS, HIWAR_STT_MODEL, HIWAR_TTS_MODEL); the region picks which base
 * URL is used.
 */
export function resolveConfig(
  input: ServiceConfigInput = {},
  env: NodeJS.ProcessEnv = process.env,
): ServiceConfig {
  const region = input.region ?? parseRegion(env.HIWAR_REGION) ?? 'global';
  const globalUrl = input.baseUrl ?? env.HIWAR_BASE_URL ?? DEFAULT_BASE_URL;
  const uaeUrl = input.uaeBaseUrl ?? env.HIWAR_UAE_BASE_URL ?? DEFAULT_UAE_BASE_URL;
  const baseUrl = trimSlash(region === 'uae' ? uaeUrl : globalUrl);
  try {
    new URL(baseUrl);
  } catch {
    throw new ConfigError(`invalid base URL for region ${region}`);
  }
  const apiKey = input.apiKey ?? (env.HIWAR_API_KEY || undefined);
  return {
    apiKey,
    region,
    baseUrl,
    wsBaseUrl: toWsUrl(baseUrl),
    timeoutMs: input.timeoutMs ?? 30_000,
    maxRetries: input.maxRetries ?? 3,
    retryBaseMs: input.retryBaseMs ?? 250,
    fetch: input.fetch ?? globalThis.fetch.bind(globalThis),
    models: resolveModels(input, env),
  };
}
