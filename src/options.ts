/** A stage's options over its defaults; an option passed as `undefined` keeps its default. */
export function withDefaults<T extends object>(defaults: T, opts: { [K in keyof T]?: T[K] | undefined } = {}): T {
  const out = { ...defaults };
  for (const [k, v] of Object.entries(opts)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
