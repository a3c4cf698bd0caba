/**
 * Fixed lines (the out-of-service line, lines kept ready in advance) rendered once per process
 * and shared by every call: a call that rendered its own over HTTP as it started held one more
 * of the key's concurrent sessions for it (docs/scaling.md). Keyed by everything that changes
 * the audio, so another voice, model, rate, speed or text renders anew. Bounded (least recently
 * used goes first); a render that failed is forgotten, so the next call tries again.
 */
export interface RenderedAudio {
  samples: Int16Array;
  sampleRate: number;
}

/** What a rendering depends on. */
export interface FixedLineKey {
  modelId: string;
  voiceId: string;
  /** The rate asked for (PCM16 at this rate is the format). */
  sampleRate: number;
  speed?: number;
  text: string;
}

export const FIXED_LINE_DEFAULTS = {
  /** Renderings kept per cache (a few lines per agent voice; each is some 100-500 kB). @default 32 */
  maxLines: 32,
} as const;

export class FixedLineCache {
  private readonly lines = new Map<string, Promise<RenderedAudio>>();

  constructor(private readonly maxLines: number = FIXED_LINE_DEFAULTS.maxLines) {}

  get size(): number {
    return this.lines.size;
  }

  /** The line's audio, rendered by `render` only when no rendering of it is kept or under way. */
  get(key: FixedLineKey, render: () => Promise<RenderedAudio>): Promise<RenderedAudio> {
    const id = JSON.stringify([key.modelId, key.voiceId, key.sampleRate, key.speed ?? null, key.text]);
    const kept = this.lines.get(id);
    if (kept) {
      // Most recently used goes last: Map keeps insertion order.
      this.lines.delete(id);
      this.lines.set(id, kept);
      return kept;
    }
    const rendering = render();
    this.lines.set(id, rendering);
    rendering.catch(() => {
      if (this.lines.get(id) === rendering) this.lines.delete(id);
    });
    while (this.lines.size > this.maxLines) this.lines.delete(this.lines.keys().next().value!);
    return rendering;
  }
}

const perClient = new WeakMap<object, FixedLineCache>();

/**
 * The process's cache for one service client (one key, one service): every call a server runs
 * with that client shares it.
 */
export function fixedLinesOf(client: object): FixedLineCache {
  let cache = perClient.get(client);
  if (!cache) perClient.set(client, (cache = new FixedLineCache()));
  return cache;
}
