import { useState } from 'preact/hooks';
import type { Session } from '../app.tsx';
import { ErrorBox, Notice, useAction } from '../ui.tsx';
import type { Collection } from './collection.tsx';
import { ConfFilters } from './filters-conf.tsx';
import { EdriveFilters } from './filters-edrive.tsx';

type SyncType = 'one' | 'arch' | 'auto';
const SYNC_TYPES: Array<[SyncType, string]> = [
  ['one', 'One-off: collect once'],
  ['arch', 'Archive: keep every version, re-sync on schedule'],
  ['auto', 'Automatic: mirror the source, re-sync on schedule'],
];

/** Connect the source, choose what to collect, save. */
export function SetupPanel({
  session,
  collection,
  onSaved,
}: {
  session: Session;
  collection: Collection;
  onSaved(): void;
}) {
  const { custody } = session;
  const [filters, setFilters] = useState<Record<string, unknown> | null>(collection.sync_filters ?? null);
  const [syncType, setSyncType] = useState<SyncType>(collection.type_sync);
  const [saved, setSaved] = useState(false);

  const connect = useAction(async () => {
    // Opened at once, inside the click, so that no popup blocker stops it; pointed at the provider below.
    const consent = window.open('', 'custody-consent', 'popup,width=640,height=720');
    try {
      const { authorization_url } = await custody.ok(
        custody.api.GET('/v1/collections/authorization_url/{type}', {
          params: {
            path: { type: collection.type },
            query: { redirect_to: `${session.server.publicUrl}/console/`, state: collection.onna_id },
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
        {saved && <Notice>Saved. Start the sync with “Start sync” above.</Notice>}
        <ErrorBox error={save.error} />
      </section>
    </div>
  );
}
