import { useState } from 'preact/hooks';
import { formatDate } from '../api.ts';
import type { Session } from '../app.tsx';
import { ErrorBox, LoadMore, usePaged } from '../ui.tsx';

/** Full-text search; the snippets arrive HTML-escaped by the server with matches in <mark>. */
export function SearchScreen({ session }: { session: Session }) {
  const { custody } = session;
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const [total, setTotal] = useState<number>();
  const results = usePaged(
    async (cursor) => {
      if (!query) return { items: [], next: null };
      const page = await custody.ok(
        custody.api.POST('/v1/search', { body: { query, size: 20, ...(cursor && { cursor }) } }),
      );
      setTotal(page.total);
      return { items: page.results, next: page.cursor };
    },
    [query],
  );
  return (
    <section>
      <h1>Search</h1>
      <form
        class="card inline"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(draft.trim());
        }}
      >
        <label>
          Query
          <input
            type="search"
            name="q"
            required
            value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
            placeholder='"quarterly budget" OR forecast*'
          />
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={results.error} />
      {query && total !== undefined && (
        <p role="status">
          {total} result{total === 1 ? '' : 's'} for “{query}”
        </p>
      )}
      <ol class="results">
        {results.rows.map((r) => (
          <li key={r.item.onna_id}>
            <div class="result-head">
              <strong>{r.item.name}</strong>
              <span class="muted">
                {r.item.kind} · {r.item.custodian ?? '—'} ·{' '}
                {formatDate(r.item.modified_datetime ?? r.item.collected_datetime)} ·{' '}
                <a href={`#/collections/${encodeURIComponent(r.item.collection_id)}/items`}>collection</a>
              </span>
            </div>
            {r.highlights.map((h) => (
              <p class="snippet" dangerouslySetInnerHTML={{ __html: h }} />
            ))}
          </li>
        ))}
      </ol>
      <LoadMore paged={results} />
    </section>
  );
}
