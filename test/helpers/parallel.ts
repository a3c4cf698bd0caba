/**
 * `fn` over `items`, at most `limit` at a time, results in order. For tests that start several
 * child processes which only check their arguments: side by side they overlap their start-up
 * waits, but more than the machine's two cores at once only queues them behind each other.
 * (Eight lines; a dependency such as p-limit would be more than the code it replaces.)
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Child processes at once in one test. */
export const SIDE_BY_SIDE = 2;
