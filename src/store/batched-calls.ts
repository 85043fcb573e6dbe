// Group commit for calls that each cost a round trip: the first call for a key goes at once, and the calls made while
// a batch of that key is under way go together in the next, so no call waits on a timer. Used by the notes of blobs
// just committed (blob-refs.ts) and by the provider budget's counts and releases (provider/budget-coalesce.ts).

interface Pending<T, A> {
  arg: A;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/**
 * `run` answers one batch's calls, in their order (it must reject, not throw); a batch that fails rejects each of its
 * calls, and the next batch still goes. At most `max` calls go in one batch.
 */
export function batchedCalls<A, T>(run: (key: string, args: A[]) => Promise<T[]>, max = Infinity) {
  const queued = new Map<string, Pending<T, A>[]>();
  const busy = new Set<string>();
  const next = (key: string) => {
    const waiting = queued.get(key);
    if (!waiting) {
      busy.delete(key);
      return;
    }
    const batch = waiting.splice(0, max);
    if (waiting.length === 0) queued.delete(key);
    busy.add(key);
    run(
      key,
      batch.map((p) => p.arg),
    )
      .then(
        (values) => batch.forEach((p, i) => p.resolve(values[i])),
        (error: unknown) => batch.forEach((p) => p.reject(error)),
      )
      .finally(() => next(key));
  };
  return (key: string, arg: A) =>
    new Promise<T>((resolve, reject) => {
      const waiting = queued.get(key) ?? [];
      waiting.push({ arg, resolve, reject });
      queued.set(key, waiting);
      if (!busy.has(key)) next(key);
    });
}
