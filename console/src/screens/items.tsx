import { useState } from 'preact/hooks';
import { custodianLabel, download, formatBytes, formatDate } from '../api.ts';
import type { Session } from '../app.tsx';
import { Dialog, ErrorBox, LoadMore, useAction, usePaged } from '../ui.tsx';
import type { Collection } from './collection.tsx';

export const KINDS: Record<string, string[]> = {
  conf: [
    'meeting',
    'recording_video',
    'recording_audio',
    'participant_audio',
    'transcript',
    'meeting_chat',
    'ai_meeting_notes',
    'chat_message',
    'channel_message',
    'chat_file',
  ],
  edrive: ['file', 'folder'],
};
const PREVIEW_BYTES = 4096;
const TEXTUAL = /^(text\/|application\/(json|xml|csv))|vtt/;

/** Stored bytes to serve: items such as a meeting, a chat message or a folder have only metadata. */
const hasContent = (it: { sha256: string | null; kind: string }) => it.sha256 !== null && it.kind !== 'folder';
/** Text shows in the preview; other content is offered as a download only. */
const previewable = (mime: string | null) => mime === null || TEXTUAL.test(mime);

const CHAT_KINDS = new Set(['chat_message', 'channel_message']);
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** A chat message's sender and text under its name (issue 20: the message is the evidence, not only a search hit). */
function ChatLine({ kind, metadata }: { kind: string; metadata: Record<string, unknown> }) {
  if (!CHAT_KINDS.has(kind)) return null;
  const sender = str(metadata.sender_display_name) ?? str(metadata.sender) ?? 'unknown sender';
  const text = str(metadata.message);
  return (
    <div class="muted chat-line">
      <strong>{sender}</strong>: {text ?? <em>no text</em>}
      {str(metadata.status) && metadata.status !== 'Normal' && <span> ({String(metadata.status).toLowerCase()})</span>}
    </div>
  );
}

export function ItemsPanel({ session, collection }: { session: Session; collection: Collection }) {
  const { custody } = session;
  const id = collection.onna_id;
  const [custodian, setCustodian] = useState('');
  const [kind, setKind] = useState('');
  const items = usePaged(
    async (cursor) => {
      const query = {
        cursor,
        limit: 50,
        ...(custodian.trim() && { custodian: custodian.trim() }),
        ...(kind && { kind }),
      };
      const page = await custody.ok(custody.api.GET('/v1/collections/{id}/items', { params: { path: { id }, query } }));
      return { items: page.items, next: page.cursor };
    },
    [id, custodian, kind],
  );
  const [preview, setPreview] = useState<{ itemId: string; name: string; text: string }>();
  const show = useAction(async (itemId: string, name: string) => {
    const res = await custody.fetch(
      `/v1/collections/${encodeURIComponent(id)}/items/${encodeURIComponent(itemId)}/content`,
      {
        headers: { range: `bytes=0-${PREVIEW_BYTES - 1}` },
      },
    );
    if (!res.ok)
      await custody.ok(Promise.resolve({ error: (await res.json().catch(() => undefined)) as unknown, response: res }));
    setPreview({ itemId, name, text: await res.text() });
  });
  const get = useAction(async (itemId: string, name: string) => {
    await download(
      await custody.fetch(`/v1/collections/${encodeURIComponent(id)}/items/${encodeURIComponent(itemId)}/content`),
      name,
    );
  });

  return (
    <section class="panel" aria-labelledby="items-h">
      <h2 id="items-h">Items</h2>
      <fieldset class="filters">
        <legend>Filter</legend>
        <label>
          Custodian (e-mail or id)
          <input name="item_custodian" value={custodian} onChange={(e) => setCustodian(e.currentTarget.value)} />
        </label>
        <label>
          Kind
          <select name="item_kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            <option value="">All kinds</option>
            {(KINDS[collection.type] ?? []).map((k) => (
              <option value={k}>{k}</option>
            ))}
          </select>
        </label>
      </fieldset>
      <ErrorBox error={items.error ?? show.error ?? get.error} />
      <table>
        <caption class="sr-only">Collected items</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Custodian</th>
            <th scope="col" class="num">
              Size
            </th>
            <th scope="col">Collected</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {items.rows.map((it) => (
            <tr key={it.onna_id}>
              <td title={it.path}>
                {it.name}
                <ChatLine metadata={it.metadata} kind={it.kind} />
              </td>
              <td>{it.kind}</td>
              <td title={it.custodian ?? undefined}>{custodianLabel(it)}</td>
              <td class="num">{formatBytes(it.size)}</td>
              <td>{formatDate(it.collected_datetime)}</td>
              <td class="row-actions">
                {hasContent(it) ? (
                  <>
                    {previewable(it.mime_type) && (
                      <button type="button" class="link" onClick={() => void show.run(it.onna_id, it.name)}>
                        Preview<span class="sr-only"> {it.name}</span>
                      </button>
                    )}
                    <button type="button" class="link" onClick={() => void get.run(it.onna_id, it.name)}>
                      Download<span class="sr-only"> {it.name}</span>
                    </button>
                  </>
                ) : (
                  <span class="muted">no content</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {items.done && items.rows.length === 0 && <p class="muted">No item matches.</p>}
      <LoadMore paged={items} />
      {preview && (
        <Dialog title={`Preview: ${preview.name}`} onClose={() => setPreview(undefined)}>
          <div class="preview">
            <pre tabIndex={0}>{preview.text}</pre>
          </div>
        </Dialog>
      )}
    </section>
  );
}
