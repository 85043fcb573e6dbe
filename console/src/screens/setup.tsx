import { useEffect, useState } from 'preact/hooks';
import type { Session } from '../app.tsx';
import { ErrorBox, Notice, useAction } from '../ui.tsx';
import type { Collection } from './collection.tsx';
import { ConfFilters } from './filters-conf.tsx';
import { EdriveFilters } from './filters-edrive.tsx';

type SyncType = 'one' | 'arch' | 'auto';

/** What the setup screen shows: sent as is by "Save filters" (and by "Save and start sync"). */
export interface SetupDraft {
  sync_filters: Record<string, unknown> | null;
  type_sync: SyncType;
}

/** Key order does not matter: `{a, b}` and `{b, a}` are the same filters. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, canonical(x)]),
    );
  return v;
}

/** Whether the screen shows something else than what the collection has saved. */
export function differsFromSaved(draft: SetupDraft | undefined, collection: Collection): boolean {
  if (!draft) return false;
  const saved = { sync_filters: collection.sync_filters ?? null, type_sync: collection.type_sync };
  return JSON.stringify(canonical(draft)) !== JSON.stringify(canonical(saved));
}
const SYNC_TYPES: Array<[SyncType, string]> = [
  ['one', 'One-off: collect once'],
  ['arch', 'Archive: keep every version, re-sync on schedule'],
  ['auto', 'Automatic: mirror the source, re-sync on schedule'],
];

/** This console's address, as the browser has it; the server's public one when the page is elsewhere. */
function consoleUrl(publicUrl: string): string {
  const here = `${location.origin}${location.pathname.replace(/[^/]*$/, '')}`;
  return here.endsWith('/console/') ? here : `${publicUrl}/console/`;
}

/** Connect the source, choose what to collect, save. */
export function SetupPanel({
  session,
  collection,
  onSaved,
  onDraft,
}: {
  session: Session;
  collection: Collection;
  onSaved(): void;
  /** Told what the screen shows, on every change (undefined when the panel closes). */
  onDraft(draft: SetupDraft | undefined): void;
}) {
  const { custody } = session;
  const [filters, setFilters] = useState<Record<string, unknown> | null>(collection.sync_filters ?? null);
  const [syncType, setSyncType] = useState<SyncType>(collection.type_sync);
  const [saved, setSaved] = useState(false);
  useEffect(() => onDraft({ sync_filters: filters, type_sync: syncType }), [filters, syncType]);
  useEffect(() => () => onDraft(undefined), []);
  const dirty = differsFromSaved({ sync_filters: filters, type_sync: syncType }, collection);

  const connect = useAction(async () => {
    // Opened at once, inside the click, so that no popup blocker stops it; pointed at the provider below.
    const consent = window.open('', 'custody-consent', 'popup,width=640,height=720');
    try {
      const { authorization_url } = await custody.ok(
        custody.api.GET('/v1/collections/authorization_url/{type}', {
          params: {
            path: { type: collection.type },
            // Back to this console's own origin (localhost or 127.0.0.1, as typed): only a window of the same
            // origin can hand the result to this one.
            query: { redirect_to: consoleUrl(session.server.publicUrl), state: collection.onna_id },
          },
          headers: { accept: 'application/json' },
        }),
      );
      if (consent) consent.location.href = authorization_url;
      else location.assign(authorization_url); // no popup: consent in this tab, then sign in again to finish
    } catch (err) {
      consent?.close();
      throw err;
    }
  });

  const save = useAction(async () => {
    if (!filters) throw new Error('Choose what to collect first.');
    setSaved(false);
    await custody.ok(
      custody.api.PATCH('/v1/collections/{id}', {
        params: { path: { id: collection.onna_id } },
        body: { sync_filters: filters, type_sync: syncType },
      }),
    );
    setSaved(true);
    onSaved();
  });

  return (
    <div class="panel">
      <section class="card" aria-labelledby="connect-h">
        <h2 id="connect-h">1. Connect</h2>
        {collection.credentials_paired ? (
          <p>
            Connected to {collection.type === 'conf' ? 'Zoom' : 'Microsoft 365'}.{' '}
            <button type="button" class="link" onClick={() => void connect.run()}>
              Connect again
            </button>
          </p>
        ) : (
          <>
            <p>
              Sign in at {collection.type === 'conf' ? 'Zoom' : 'Microsoft 365'} as an administrator and consent; you
              come back here.
            </p>
            <button type="button" onClick={() => void connect.run()} disabled={connect.busy}>
              Connect {collection.type === 'conf' ? 'Zoom' : 'Microsoft 365'}
            </button>
          </>
        )}
        <ErrorBox error={connect.error} />
      </section>

      <section class="card" aria-labelledby="choose-h">
        <h2 id="choose-h">2. Choose what to collect</h2>
        {!collection.credentials_paired ? (
          <p class="muted">Connect first: the custodians, channels and folders come from the source.</p>
        ) : collection.type === 'conf' ? (
          <ConfFilters
            session={session}
            collectionId={collection.onna_id}
            initial={collection.sync_filters}
            onChange={setFilters}
          />
        ) : (
          <EdriveFilters
            session={session}
            collectionId={collection.onna_id}
            initial={collection.sync_filters}
            onChange={setFilters}
          />
        )}
      </section>

      <section class="card" aria-labelledby="save-h">
        <h2 id="save-h">3. Sync type and save</h2>
        <fieldset>
          <legend>Sync type</legend>
          {SYNC_TYPES.map(([value, label]) => (
            <label class="check">
              <input
                type="radio"
                name="type_sync"
                value={value}
                checked={syncType === value}
                onChange={() => setSyncType(value)}
              />
              {label}
            </label>
          ))}
        </fieldset>
        <h3 id="filter-preview-h">The filter object sent on save</h3>
        <pre class="json" aria-labelledby="filter-preview-h" tabIndex={0}>
          {JSON.stringify({ type_sync: syncType, sync_filters: filters }, null, 2)}
        </pre>
        <button type="button" onClick={() => void save.run()} disabled={save.busy || !filters}>
          Save filters
        </button>
        {saved && !dirty && <Notice>Saved. Start the sync with “Start sync” above.</Notice>}
        {dirty && collection.sync_filters && (
          <p class="unsaved" role="status">
            Not saved yet: the choices on screen differ from the saved ones.
          </p>
        )}
        <ErrorBox error={save.error} />
      </section>
    </div>
  );
}
