/**
 * Runs `each` over `items`, `width` at a time; rejects with the first failure once every started
 * call has settled, so that nothing is left running against a service the caller then stops.
 */
export async function inParallel<T>(items: Iterable<T>, width: number, each: (item: T) => Promise<unknown>): Promise<void> {
  const queue = [...items];
  let failure: { err: unknown } | undefined;
  const lane = async () => {
    for (let item = queue.shift(); item !== undefined && !failure; item = queue.shift()) {
      await each(item).catch((err: unknown) => { failure ??= { err }; });
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, queue.length) }, lane));
  if (failure) throw failure.err;
}
