import { useState } from 'preact/hooks';
import { custodianLabel, formatDate } from '../api.ts';
import type { Session } from '../app.tsx';
import { ErrorBox, LoadMore, usePaged } from '../ui.tsx';
import { KINDS } from './items.tsx';

const ALL_KINDS = [...new Set(Object.values(KINDS).flat())];

interface Filters {
  custodian: string;
  kind: string;
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { custodian: '', kind: '', from: '', to: '' };

/** Full-text search with filters; the snippets arrive HTML-escaped by the server with matches in <mark>. */
export function SearchScreen({ session }: { session: Session }) {
  const { custody } = session;
  const [draft, setDraft] = useState('');
  const [draftFilters, setDraftFilters] = useState<Filters>(NO_FILTERS);
  const [query, setQuery] = useState('');
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [total, setTotal] = useState<{ n: number; more: boolean }>();
  const results = usePaged(
    async (cursor) => {
      if (!query) return { items: [], next: null };
      const body = {
        query,
        size: 20,
        ...(cursor && { cursor }),
        ...(filters.custodian.trim() && { custodians: [filters.custodian.trim()] }),
        ...(filters.kind && { kinds: [filters.kind] }),
        ...(filters.from && { date_from: filters.from }),
        ...(filters.to && { date_to: filters.to }),
      };
      const page = await custody.ok(custody.api.POST('/v1/search', { body }));
      setTotal({ n: page.total, more: page.total_relation === 'gte' });
      return { items: page.results, next: page.cursor };
    },
    [query, filters],
  );
  const set = (k: keyof Filters) => (e: { currentTarget: { value: string } }) =>
    setDraftFilters((f) => ({ ...f, [k]: e.currentTarget.value }));
  return (
    <section>
      <h1>Search</h1>
      <form
        class="card inline"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(draft.trim());
          setFilters(draftFilters);
        }}
      >
        <label class="query">
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
        <label>
          Custodian (e-mail or id)
          <input name="search_custodian" value={draftFilters.custodian} onInput={set('custodian')} />
        </label>
        <label>
          Kind
          <select name="search_kind" value={draftFilters.kind} onChange={set('kind')}>
            <option value="">All kinds</option>
            {ALL_KINDS.map((k) => (
              <option value={k}>{k.replace(/_/g, ' ')}</option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" name="search_from" value={draftFilters.from} onInput={set('from')} />
        </label>
        <label>
          To
          <input type="date" name="search_to" value={draftFilters.to} onInput={set('to')} />
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={results.error} />
      {query && total !== undefined && (
        <p role="status">
          {total.more
            ? `More than ${total.n.toLocaleString('en-US')} results for “${query}”: the first ${total.n.toLocaleString('en-US')} are ranked; narrow the search to rank them all`
            : `${total.n} result${total.n === 1 ? '' : 's'} for “${query}”`}
        </p>
      )}
      <ol class="results">
        {results.rows.map((r) => (
          <li key={r.item.onna_id} data-item={r.item.onna_id}>
            <div class="result-head">
              <strong>{r.item.name}</strong>
              <span class="muted">
                {r.item.kind} · <span title={r.item.custodian ?? undefined}>{custodianLabel(r.item)}</span> ·{' '}
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
