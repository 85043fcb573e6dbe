/** One page as a lister sees it: the rows and the token of the next page (null or undefined on the last). */
export interface Page<T> {
  items: T[];
  next: string | null | undefined;
}

/**
 * Every row of a paged list, fetching a page only when the previous one is used up. `fetchPage` receives the
 * previous page's token (undefined for the first page).
 */
export async function* paginate<T>(
  fetchPage: (next: string | undefined) => Promise<Page<T>>,
): AsyncGenerator<T, void, undefined> {
  let next: string | undefined;
  do {
    const page = await fetchPage(next);
    yield* page.items;
    next = page.next ?? undefined;
  } while (next);
}

/** Collects an async iterable into an array (bounded by `max` rows when given). */
export async function collect<T>(rows: AsyncIterable<T>, max = Infinity): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) {
    if (out.length >= max) break;
    out.push(row);
  }
  return out;
}
