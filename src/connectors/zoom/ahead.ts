// Listings asked for ahead of their turn: a unit that walks an owner's history one month window after the other
// has one request in flight and leaves the credential's budget idle while it waits on Zoom (issue 25). The
// results are still taken in order, so a checkpoint only ever moves past windows whose items were all handed over.

/** How many listings of one walk are in flight at once (the credential's budget still bounds the requests). */
export const LISTINGS_AHEAD = 4;

/**
 * `fetch(i)` for i from `from` to `count - 1`, yielded in that order, with up to `depth` of them started at once.
 * A failure is thrown when its turn comes, after everything before it was yielded, as a walk in sequence would
 * have; what was started beyond a walk the consumer stopped is not awaited.
 */
export async function* inOrderAhead<T>(
  from: number,
  count: number,
  depth: number,
  fetch: (i: number) => Promise<T>,
): AsyncGenerator<T> {
  const started = new Map<number, Promise<T>>();
  let next = from;
  for (let i = from; i < count; i++) {
    for (; next < Math.min(count, i + Math.max(1, depth)); next++) {
      const result = fetch(next);
      // Awaited when its turn comes, or never (the consumer stopped first): not an unhandled rejection meanwhile.
      result.catch(() => undefined);
      started.set(next, result);
    }
    const result = started.get(i)!;
    started.delete(i);
    yield await result;
  }
}
