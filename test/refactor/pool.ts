/**
 * A few processes at a time: the tools of test/refactor/ start dozens of CLI runs, and
 * outputs.test.ts runs them in every `npm test`, on a 2-core machine beside another test file.
 */

/** Runs `work` on every item, at most `limit` at a time (a 2-core machine runs the tests). */
export async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
