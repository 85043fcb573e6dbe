import { useEffect, useRef, useState } from 'preact/hooks';
import { download, formatBytes, formatDate } from '../api.ts';
import type { Session } from '../app.tsx';
import { ErrorBox, ProgressBar, StatusBadge, useAction, useLoad } from '../ui.tsx';
import type { Collection } from './collection.tsx';

interface Progress {
  documents_done: number;
  documents_total: number;
  bytes: number;
}

const list = (text: string) =>
  text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Exports of a collection: options (selection, chat format, dedupe), live progress from the collection's event
 * stream (`export.progress`, `export.finished`), the package's download, and what a recipient needs to verify it
 * offline (its SHA-256, the signing key ids, the `custody verify` command).
 */
export function ExportsPanel({ session, collection }: { session: Session; collection: Collection }) {
  const { custody } = session;
  const id = collection.onna_id;
  const exports = useLoad(
    () => custody.ok(custody.api.GET('/v1/collections/{id}/exports', { params: { path: { id } } })),
    [id],
  );
  const keys = useLoad(
    async () => (await (await fetch('/v1/signing-keys')).json()) as { keys: Array<{ kid: string }> },
    [],
  );
  const [chatFormat, setChatFormat] = useState<'rsmf' | 'json'>('rsmf');
  const [dedupe, setDedupe] = useState<'none' | 'custodian' | 'global'>('none');
  const [custodians, setCustodians] = useState('');
  const [kinds, setKinds] = useState('');
  const [progress, setProgress] = useState<Record<string, Progress>>({});
  const [streamError, setStreamError] = useState<unknown>();
  const started = useRef(new Set<string>());

  useEffect(() => {
    const abort = new AbortController();
    let lastEventId: string | undefined;
    void (async () => {
      while (!abort.signal.aborted) {
        try {
          for await (const e of custody.events(id, { lastEventId, signal: abort.signal })) {
            lastEventId = e.id ?? lastEventId;
            setStreamError(undefined);
            const data = e.data as Progress & { export_id: string };
            if (e.event === 'export.progress') {
              setProgress((p) => ({ ...p, [data.export_id]: data }));
              // the first progress of an export: its row now says running
              if (!started.current.has(data.export_id)) {
                started.current.add(data.export_id);
                exports.reload();
              }
            }
            if (e.event === 'export.finished') exports.reload();
          }
        } catch (err) {
          if (abort.signal.aborted) return;
          setStreamError(err);
        }
        await new Promise((r) => setTimeout(r, 2000));
      }
    })();
    return () => abort.abort();
  }, [id]);

  const create = useAction(async () => {
    const items = {
      ...(list(custodians).length > 0 && { custodians: list(custodians) }),
      ...(list(kinds).length > 0 && { kinds: list(kinds) }),
    };
    await custody.ok(
      custody.api.POST('/v1/collections/{id}/exports', {
        params: { path: { id } },
        body: { items, chat_format: chatFormat, dedupe },
      }),
    );
    exports.reload();
  });
  const fetchPackage = useAction(async (exportId: string) => {
    const name = `custody-export-${exportId}.zip`;
    await download(
      await custody.fetch(`/v1/collections/${encodeURIComponent(id)}/exports/${encodeURIComponent(exportId)}/download`),
      name,
    );
  });
  const cancel = useAction(async (exportId: string) => {
    await custody.ok(
      custody.api.POST('/v1/collections/{id}/exports/{export_id}/cancel', {
        params: { path: { id, export_id: exportId } },
      }),
    );
    exports.reload();
  });

  const rows = exports.data?.items ?? [];
  const kids = keys.data?.keys.map((k) => k.kid) ?? [];
  const latest = rows.find((x) => x.status === 'succeeded');
  return (
    <section class="panel" aria-labelledby="exports-h">
      <h2 id="exports-h">Exports</h2>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <fieldset>
          <legend>New export</legend>
          <label>
            Chat format
            <select value={chatFormat} onChange={(e) => setChatFormat(e.currentTarget.value as 'rsmf' | 'json')}>
              <option value="rsmf">RSMF 2.0 (one file per conversation per day)</option>
              <option value="json">JSON (one document per conversation per day)</option>
            </select>
          </label>
          <label>
            Deduplication
            <select
              value={dedupe}
              onChange={(e) => setDedupe(e.currentTarget.value as 'none' | 'custodian' | 'global')}
            >
              <option value="none">None</option>
              <option value="custodian">Within each custodian</option>
              <option value="global">Across the export</option>
            </select>
          </label>
          <label>
            Custodians (optional, comma-separated)
            <input
              name="export_custodians"
              value={custodians}
              onInput={(e) => setCustodians(e.currentTarget.value)}
              placeholder="all custodians"
            />
          </label>
          <label>
            Kinds (optional, comma-separated)
            <input
              name="export_kinds"
              value={kinds}
              onInput={(e) => setKinds(e.currentTarget.value)}
              placeholder="all kinds"
            />
          </label>
          <button type="submit" disabled={create.busy}>
            Start export
          </button>
        </fieldset>
      </form>
      <ErrorBox error={create.error ?? fetchPackage.error ?? cancel.error ?? exports.error ?? streamError} />
      <table>
        <caption class="sr-only">Exports, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Export</th>
            <th scope="col">Created</th>
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col" class="num">
              Documents
            </th>
            <th scope="col" class="num">
              Size
            </th>
            <th scope="col">Package</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((x) => {
            const p = progress[x.export_id];
            const done =
              x.status === 'succeeded' && x.counts
                ? { documents_done: x.counts.documents, documents_total: x.counts.documents }
                : p;
            return (
              <tr key={x.export_id} data-export={x.export_id}>
                <td>{x.export_id}</td>
                <td>{formatDate(x.created_at)}</td>
                <td>
                  <StatusBadge status={x.status} />
                  {x.error && <div class="muted">{x.error}</div>}
                </td>
                <td>
                  {done ? (
                    <ProgressBar
                      done={done.documents_done}
                      total={done.documents_total}
                      label={`${x.export_id} progress`}
                      tone={x.status === 'failed' ? 'failed' : 'ok'}
                    />
                  ) : (
                    '—'
                  )}
                </td>
                <td class="num">{x.counts?.documents ?? '—'}</td>
                <td class="num">{formatBytes(x.bytes ?? p?.bytes)}</td>
                <td>
                  {x.status === 'succeeded' && (
                    <>
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Download ${x.export_id}`}
                        onClick={() => void fetchPackage.run(x.export_id)}
                        disabled={fetchPackage.busy}
                      >
                        Download
                      </button>
                      <div class="muted">
                        SHA-256 <code class="sha256">{x.sha256}</code>
                      </div>
                    </>
                  )}
                  {['queued', 'running'].includes(x.status) && (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Cancel ${x.export_id}`}
                      onClick={() => void cancel.run(x.export_id)}
                      disabled={cancel.busy}
                    >
                      Cancel
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {exports.data && rows.length === 0 && <p class="muted">No export yet.</p>}
      <section class="card verify" aria-labelledby="verify-h">
        <h3 id="verify-h">Verifying a package</h3>
        <p>
          Each package carries <code>manifest.json</code> signed in <code>manifest.jws</code> (Ed25519). This
          installation signs with key id {kids.length > 0 ? kids.map((k) => <code class="kid">{k}</code>) : '—'}; its
          public keys are served without sign-in at <code>/v1/signing-keys</code>. A recipient checks a package offline,
          with the keys obtained separately:
        </p>
        <pre class="verify-hint">
          {`custody keys export keys.json\ncustody verify ${latest ? `custody-export-${latest.export_id}.zip` : '<package.zip>'} --keys keys.json`}
        </pre>
        <p class="muted">
          It prints "verified: N files, M documents" and exits 0, or names the first problem and exits 1.
        </p>
        <ErrorBox error={keys.error} />
      </section>
    </section>
  );
}
