import { useEffect, useState } from 'preact/hooks';
import { download } from '../api.ts';
import type { Session } from '../app.tsx';
import { onPairingMessage, type PairingReturn } from '../pairing.ts';
import { ErrorBox, FailureBox, Notice, StatusBadge, useAction, useLoad } from '../ui.tsx';
import { ExportsPanel } from './exports.tsx';
import { ItemsPanel } from './items.tsx';
import { ProgressPanel } from './progress.tsx';
import { RunsPanel } from './runs.tsx';
import { differsFromSaved, SetupPanel, type SetupDraft } from './setup.tsx';

export type Collection = Awaited<ReturnType<typeof loadCollection>>;

function loadCollection(session: Session, id: string) {
  const { custody } = session;
  return custody.ok(custody.api.GET('/v1/collections/{id}', { params: { path: { id } } }));
}

const TABS = [
  ['setup', 'Connect and choose'],
  ['progress', 'Progress'],
  ['runs', 'Run history'],
  ['items', 'Items'],
  ['exports', 'Exports'],
] as const;

export function CollectionScreen(props: {
  session: Session;
  id: string;
  tab: string;
  pairing?: PairingReturn;
  onPairingHandled(): void;
}) {
  const { session, id, tab } = props;
  const { custody } = session;
  const collection = useLoad(() => loadCollection(session, id), [id]);
  const c = collection.data;

  const pair = useAction(async (result: PairingReturn) => {
    if (result.error)
      throw new Error(`The provider refused the connection: ${result.errorDescription ?? result.error}`);
    await custody.ok(
      custody.api.POST('/v1/collections/{id}/pair_credentials', {
        params: { path: { id: result.collectionId }, query: { auth_code: result.code! } },
      }),
    );
    collection.reload();
  });
  // A connection that came back in this tab (signed in again since).
  useEffect(() => {
    if (props.pairing) {
      void pair.run(props.pairing);
      props.onPairingHandled();
    }
  }, [props.pairing]);
  // A connection that came back in the consent window.
  useEffect(() => onPairingMessage((result) => result.collectionId === id && void pair.run(result)), [id]);

  // While a run is queued or running, the status is re-read now and then (the event stream carries the details).
  const moving = c?.sync_status === 'pending' || c?.sync_status === 'syncing';
  useEffect(() => {
    if (!moving) return;
    const timer = setInterval(() => collection.reload(), 2000);
    return () => clearInterval(timer);
  }, [moving]);

  // What the setup screen shows: Start never runs with older filters than the ones on screen.
  const [draft, setDraft] = useState<SetupDraft>();
  const [savedFirst, setSavedFirst] = useState(false);
  const unsaved = c !== undefined && differsFromSaved(draft, c);
  const start = useAction(async () => {
    setSavedFirst(false);
    if (unsaved && draft) {
      if (!draft.sync_filters) throw new Error('Choose what to collect first.');
      await custody.ok(
        custody.api.PATCH('/v1/collections/{id}', {
          params: { path: { id } },
          body: { sync_filters: draft.sync_filters, type_sync: draft.type_sync },
        }),
      );
      setSavedFirst(true);
    }
    await custody.ok(custody.api.POST('/v1/collections/{id}/start', { params: { path: { id } } }));
    collection.reload();
    location.hash = `#/collections/${encodeURIComponent(id)}/progress`;
  });
  const canCancel = session.server.has('post', '/v1/collections/{id}/runs/{run_id}/cancel');
  const cancel = useAction(async () => {
    const runId = c?.latest_run?.run_id;
    if (!runId) return;
    const res = await custody.fetch(
      `/v1/collections/${encodeURIComponent(id)}/runs/${encodeURIComponent(runId)}/cancel`,
      { method: 'POST' },
    );
    if (!res.ok)
      await custody.ok(Promise.resolve({ error: (await res.json().catch(() => undefined)) as unknown, response: res }));
    collection.reload();
  });
  const manifest = useAction(async (format: 'json' | 'csv') => {
    await download(
      await custody.fetch(`/v1/collections/${encodeURIComponent(id)}/manifest?format=${format}`),
      `manifest-${id}.${format}`,
    );
  });

  if (!c) {
    return (
      <section>
        <h1>Collection</h1>
        {collection.loading && <p>Loading…</p>}
        <ErrorBox error={collection.error} />
      </section>
    );
  }
  const active = c.latest_run && ['queued', 'running'].includes(c.latest_run.status);
  return (
    <section>
      <p class="crumbs">
        <a href="#/collections">Collections</a> / {c.name}
      </p>
      <div class="title-row">
        <h1>{c.name}</h1>
        <StatusBadge status={c.sync_status} />
        <span class="muted">
          {c.type === 'conf' ? 'Zoom' : 'OneDrive for Business'} ·{' '}
          {c.credentials_paired ? 'connected' : 'not connected'} · sync type {c.type_sync}
        </span>
      </div>
      {c.status_reason &&
        (['failed', 'error'].includes(c.sync_status) ? (
          <FailureBox title={c.sync_status === 'error' ? 'This collection needs attention.' : 'The last sync failed.'}>
            {c.status_reason}
          </FailureBox>
        ) : (
          <Notice>{c.status_reason}</Notice>
        ))}
      <div class="actions">
        <button
          type="button"
          onClick={() => void start.run()}
          disabled={start.busy || !c.credentials_paired || !(unsaved ? draft?.sync_filters : c.sync_filters)}
        >
          {unsaved ? 'Save and start sync' : 'Start sync'}
        </button>
        {canCancel && active && (
          <button type="button" class="danger" onClick={() => void cancel.run()} disabled={cancel.busy}>
            Cancel run
          </button>
        )}
        <button type="button" class="secondary" onClick={() => void manifest.run('csv')} disabled={manifest.busy}>
          Download manifest (CSV)
        </button>
        <button type="button" class="secondary" onClick={() => void manifest.run('json')} disabled={manifest.busy}>
          Download manifest (JSON)
        </button>
        <button type="button" class="secondary" onClick={() => collection.reload()}>
          Refresh
        </button>
      </div>
      <ErrorBox error={start.error ?? cancel.error ?? manifest.error ?? pair.error ?? collection.error} />
      {pair.busy && <Notice>Finishing the connection…</Notice>}
      {unsaved && tab === 'setup' && (
        <Notice>The choices on screen are not saved: “Save and start sync” saves them, then starts.</Notice>
      )}
      {savedFirst && <Notice>Saved the choices that were on screen, then started the sync.</Notice>}
      <nav class="tabs" aria-label="Collection">
        {TABS.map(([key, label]) => (
          <a href={`#/collections/${encodeURIComponent(id)}/${key}`} aria-current={tab === key ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {tab === 'setup' && (
        <SetupPanel session={session} collection={c} onSaved={() => collection.reload()} onDraft={setDraft} />
      )}
      {tab === 'progress' && <ProgressPanel session={session} collection={c} onFinished={() => collection.reload()} />}
      {tab === 'runs' && <RunsPanel session={session} collectionId={id} />}
      {tab === 'items' && <ItemsPanel session={session} collection={c} />}
      {tab === 'exports' && <ExportsPanel session={session} collection={c} />}
    </section>
  );
}
