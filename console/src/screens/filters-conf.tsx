import { useEffect, useState } from 'preact/hooks';
import type { ConfUsersPage } from '../api.ts';
import type { Session } from '../app.tsx';
import { usePaged } from '../ui.tsx';
import { ALL, NONE, Picker, type IdSelection } from './picker.tsx';

const CONTENT = [
  ['chat', 'In-meeting chat'],
  ['audio', 'Audio recordings'],
  ['video', 'Video recordings'],
  ['transcript', 'Transcripts'],
  ['AI-meeting-notes', 'AI meeting notes'],
] as const;
type Kind = (typeof CONTENT)[number][0];
type ChatEntry = { 'one-to-one': boolean } | { channels: IdSelection };
interface Selection<T> {
  all_selected: boolean;
  selected: T[];
  excluded: T[];
}
interface Filters {
  account_owners: IdSelection;
  content_selections: Selection<Partial<Record<Kind, boolean>>>;
  chats?: Selection<ChatEntry>;
}

/** Reads a saved filter back into the form's state (the spec's selection rules). */
function fromSaved(saved: unknown) {
  const f = (saved ?? null) as Filters | null;
  const sel = f?.content_selections;
  const on = (list: Array<Partial<Record<Kind, boolean>>>, k: Kind) => list.some((e) => e[k] === true);
  const kinds = new Set<Kind>(
    CONTENT.map(([k]) => k).filter((k) =>
      !sel ? true : sel.all_selected ? !on(sel.excluded, k) : on(sel.selected, k),
    ),
  );
  const chats = f?.chats;
  const find = (list: ChatEntry[], key: 'one-to-one' | 'channels') =>
    list.find((e) => key in e) as Record<string, unknown> | undefined;
  let oneToOne = false;
  let channels: IdSelection | null = null;
  if (chats?.all_selected) {
    oneToOne = find(chats.excluded, 'one-to-one')?.['one-to-one'] !== true;
    channels = {
      ...ALL,
      excluded: (find(chats.excluded, 'channels')?.channels as IdSelection | undefined)?.selected ?? [],
    };
  } else if (chats) {
    oneToOne = find(chats.selected, 'one-to-one')?.['one-to-one'] === true;
    channels = (find(chats.selected, 'channels')?.channels as IdSelection | undefined) ?? null;
  }
  return { owners: f?.account_owners ?? NONE, kinds, oneToOne, channels };
}

function toFilters(s: ReturnType<typeof fromSaved>): Filters {
  const all = CONTENT.every(([k]) => s.kinds.has(k));
  const chatEntries: ChatEntry[] = [
    ...(s.oneToOne ? [{ 'one-to-one': true }] : []),
    ...(s.channels ? [{ channels: s.channels }] : []),
  ];
  return {
    account_owners: s.owners,
    content_selections: all
      ? { all_selected: true, selected: [], excluded: [] }
      : {
          all_selected: false,
          selected: CONTENT.filter(([k]) => s.kinds.has(k)).map(([k]) => ({ [k]: true })),
          excluded: [],
        },
    // No chat at all: the spec says to omit the key.
    ...(chatEntries.length > 0 && { chats: { all_selected: false, selected: chatEntries, excluded: [] } }),
  };
}

export function ConfFilters(props: {
  session: Session;
  collectionId: string;
  initial: unknown;
  onChange(f: Record<string, unknown>): void;
}) {
  const { custody } = props.session;
  const [state, setState] = useState(() => fromSaved(props.initial));
  useEffect(() => props.onChange(toFilters(state) as unknown as Record<string, unknown>), [state]);

  const users = usePaged(
    async (offset) => {
      const page = (await custody.ok(
        custody.api.GET('/v1/collections/{id}/users', {
          params: { path: { id: props.collectionId }, query: { limit: 300, offset } },
        }),
      )) as ConfUsersPage;
      return { items: page.results, next: page.next_page_token };
    },
    [props.collectionId],
  );
  const userRows = users.rows.map((u) => {
    const d = (u.data ?? {}) as {
      first_name?: string | null;
      last_name?: string | null;
      email?: string | null;
      status?: string | null;
    };
    const name = [d.first_name, d.last_name].filter(Boolean).join(' ');
    return { id: u.id, label: name || d.email || u.id, detail: [d.email, d.status].filter(Boolean).join(' · ') };
  });

  const [channelUser, setChannelUser] = useState('');
  const channelOwner = channelUser || users.rows[0]?.id || '';
  const channels = usePaged(
    async (offset) => {
      if (!channelOwner) return { items: [], next: null };
      const page = await custody.ok(
        custody.api.GET('/v1/collections/{id}/channels', {
          params: { path: { id: props.collectionId }, query: { user: channelOwner, offset } },
        }),
      );
      return { items: page.results, next: page.next_page_token };
    },
    [props.collectionId, channelOwner],
  );

  return (
    <div class="stack">
      <Picker
        legend="Custodians"
        name="custodian"
        rows={userRows}
        value={state.owners}
        onChange={(owners) => setState({ ...state, owners })}
        paged={users}
      />
      <fieldset>
        <legend>Meeting content</legend>
        {CONTENT.map(([k, label]) => (
          <label class="check">
            <input
              type="checkbox"
              name="content"
              value={k}
              checked={state.kinds.has(k)}
              onChange={(e) => {
                const kinds = new Set(state.kinds);
                if (e.currentTarget.checked) kinds.add(k);
                else kinds.delete(k);
                setState({ ...state, kinds });
              }}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Chats</legend>
        <label class="check">
          <input
            type="checkbox"
            name="one_to_one"
            checked={state.oneToOne}
            onChange={(e) => setState({ ...state, oneToOne: e.currentTarget.checked })}
          />
          One-to-one chats
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="channels_on"
            checked={state.channels !== null}
            onChange={(e) => setState({ ...state, channels: e.currentTarget.checked ? NONE : null })}
          />
          Team Chat channels
        </label>
        {state.channels && (
          <div class="nested">
            <label>
              Channels of
              <select value={channelOwner} onChange={(e) => setChannelUser(e.currentTarget.value)}>
                {userRows.map((u) => (
                  <option value={u.id}>{u.label}</option>
                ))}
              </select>
            </label>
            <Picker
              legend="Channels"
              name="channel"
              rows={channels.rows.map((c) => ({
                id: c.id,
                label: c.name ?? c.id,
                detail: c.is_private ? 'private' : undefined,
              }))}
              value={state.channels}
              onChange={(sel) => setState({ ...state, channels: sel })}
              paged={channels}
            />
          </div>
        )}
      </fieldset>
    </div>
  );
}
