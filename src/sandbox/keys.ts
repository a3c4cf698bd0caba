import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** A key the sandbox accepts, as written in a --keys file. */
export const keySpecSchema = z.object({
  key: z.string().min(8),
  region: z.enum(['global', 'uae']).default('global'),
  credits: z.number().nonnegative().default(1_000_000),
  /** Endpoint path prefixes this key may call; absent = every endpoint. */
  allow: z.array(z.string()).optional(),
  concurrency: z.number().int().positive().default(4),
});
/** One key the sandbox accepts: the key, its region, credits, concurrency and allowed endpoints. */
export type KeySpec = z.input<typeof keySpecSchema>;
export type Region = 'global' | 'uae';

export class KeyState {
  credits: number;
  active = 0;
  /** Most sessions held at once, and sessions refused at the limit (429 / 42901): for tests of callers' budgets. */
  peak = 0;
  refused = 0;
  constructor(readonly spec: z.output<typeof keySpecSchema>) {
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
    for (const s of specs) {
      const spec = keySpecSchema.parse(s);
      this.keys.set(spec.key, new KeyState(spec));
    }
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
  const parsed = z.array(keySpecSchema).safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`keys file: entry ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
