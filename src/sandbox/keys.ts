import { randomBytes } from 'node:crypto';

export type Region = 'global' | 'uae';
const REGIONS: readonly Region[] = ['global', 'uae'];

/** One key the sandbox accepts: the key, its region, credits, concurrency and allowed endpoints. */
export interface KeySpec {
  key: string;
  region?: Region | undefined;
  credits?: number | undefined;
  /** Endpoint path prefixes this key may call; absent = every endpoint. */
  allow?: string[] | undefined;
  concurrency?: number | undefined;
}
/** A key with its defaults filled in. */
type FullKeySpec = Required<Omit<KeySpec, 'allow'>> & Pick<KeySpec, 'allow'>;

/**
 * A key as written in a --keys file or given to `startSandbox`, checked and with its defaults
 * (region global, a million credits, 4 sessions at once); the error names the bad field. Checked
 * by hand rather than with zod: every sandbox checks its keys, and zod is 95 modules to load.
 */
function keySpec(raw: unknown, where: string): FullKeySpec {
  const bad = (field: string, what: string): never => {
    throw new Error(`${where}.${field}: ${what}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${where}: expected an object with a "key"`);
  const r = raw as Record<string, unknown>;
  if (typeof r.key !== 'string' || r.key.length < 8) bad('key', 'expected a string of at least 8 characters');
  const region = r.region ?? 'global';
  if (!REGIONS.includes(region as Region)) bad('region', `expected one of ${REGIONS.map((x) => `"${x}"`).join(', ')}`);
  const credits = r.credits ?? 1_000_000;
  if (typeof credits !== 'number' || !Number.isFinite(credits) || credits < 0) bad('credits', 'expected a number of at least 0');
  if (r.allow !== undefined && (!Array.isArray(r.allow) || r.allow.some((a) => typeof a !== 'string'))) bad('allow', 'expected an array of endpoint paths');
  const concurrency = r.concurrency ?? 4;
  if (typeof concurrency !== 'number' || !Number.isInteger(concurrency) || concurrency <= 0) bad('concurrency', 'expected a whole number above 0');
  return { key: r.key as string, region: region as Region, credits: credits as number, concurrency: concurrency as number, ...(r.allow ? { allow: r.allow as string[] } : {}) };
}

export class KeyState {
  credits: number;
  active = 0;
  /** Most sessions held at once, and sessions refused at the limit (429 / 42901): for tests of callers' budgets. */
  peak = 0;
  refused = 0;
  constructor(readonly spec: FullKeySpec) {
    this.credits = spec.credits;
  }

  /** `/text-to-speech` in allow also opens the TTS socket, `/speech-to-text` the legacy one. */
  may(endpoint: string): boolean {
    const allow = this.spec.allow;
    if (!allow) return true;
    return allow.some((a) => endpoint.startsWith(a) || endpoint.startsWith(`/websocket${a}`));
  }

  /** Takes one concurrency slot; undefined when the key is at its limit. */
  acquire(): (() => void) | undefined {
    if (this.active >= this.spec.concurrency) {
      this.refused++;
      return undefined;
    }
    this.active++;
    this.peak = Math.max(this.peak, this.active);
    let released = false;
    return () => {
      if (!released) this.active--;
      released = true;
    };
  }

  canSpend(credits: number): boolean {
    return this.credits >= credits;
  }

  /** Spends what is left, down to zero; returns false when the balance did not cover it. */
  spend(credits: number): boolean {
    const ok = this.credits >= credits;
    this.credits = Math.max(0, this.credits - credits);
    return ok;
  }
}

export class KeyStore {
  private readonly keys = new Map<string, KeyState>();

  constructor(specs: KeySpec[]) {
    specs.forEach((s, i) => {
      const spec = keySpec(s, `sandbox key ${i}`);
      this.keys.set(spec.key, new KeyState(spec));
    });
  }

  /** The key's state when it exists in this region. */
  lookup(key: string | undefined, region: Region): KeyState | undefined {
    if (!key) return undefined;
    const state = this.keys.get(key);
    return state && state.spec.region === region ? state : undefined;
  }

  list(): KeyState[] {
    return [...this.keys.values()];
  }
}

export function generateKey(): string {
  return `sk-sandbox-${randomBytes(12).toString('hex')}`;
}

/** Reads and validates a --keys file body; the error names the bad entry. */
export function parseKeysFile(json: string): KeySpec[] {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (err) {
    throw new Error(`keys file is not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(data)) throw new Error('keys file: expected an array of keys');
  return data.map((entry, i) => keySpec(entry, `keys file: entry ${i}`));
}
