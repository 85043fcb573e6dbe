// Random selections, drawn as abstract picks (indexes, flags) and laid onto a seeded tenant once it exists, so
// fast-check can shrink them. Every shape the spec allows is drawn: all_selected true and false, with entries in
// both lists (the list the flag does not use must be ignored), duplicates, entries switched off with `false`.
import fc from 'fast-check';
import type { MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { ZoomTenant } from '../../sandbox/zoom/index.ts';
import type {
  ChatEntry,
  ContentEntry,
  ContentKey,
  IdEntry,
  SpecConfFilters,
  SpecEdriveFilters,
  SpecSelection,
} from './oracle.ts';

/** numRuns for the property tests: small in CI, COMPLETENESS_RUNS=… for a longer search. */
export const RUNS = Number(process.env.COMPLETENESS_RUNS ?? 6);
/** COMPLETENESS_SEED=… replays a reported failure. */
export const SEED = process.env.COMPLETENESS_SEED ? Number(process.env.COMPLETENESS_SEED) : undefined;
/** COMPLETENESS_PATH=… (with COMPLETENESS_SEED) replays only the reported draw. */
export const PATH = process.env.COMPLETENESS_PATH || undefined;

interface PickSelection {
  all: boolean;
  selected: number[];
  excluded: number[];
}

const picks = fc.array(fc.nat(40), { maxLength: 4 });
const pickSelection: fc.Arbitrary<PickSelection> = fc.record({ all: fc.boolean(), selected: picks, excluded: picks });

function idSelection(ids: string[], p: PickSelection): SpecSelection<IdEntry> {
  const at = (i: number) => ({ id: ids[i % ids.length] });
  return {
    all_selected: p.all,
    selected: ids.length ? p.selected.map(at) : [],
    excluded: ids.length ? p.excluded.map(at) : [],
  };
}

const CONTENT_KEYS: ContentKey[] = ['chat', 'audio', 'video', 'transcript', 'AI-meeting-notes'];
const contentEntry = fc
  .record({ k: fc.constantFrom(...CONTENT_KEYS), on: fc.boolean() })
  .map(({ k, on }): ContentEntry => ({ [k]: on }));
const contentSelection = fc.record({
  all_selected: fc.boolean(),
  selected: fc.array(contentEntry, { maxLength: 5 }),
  excluded: fc.array(contentEntry, { maxLength: 3 }),
});

/**
 * Chats: absent; all selected (one-to-one switched off or not through `excluded`); or a list of one-to-one and
 * channels (with their own selection). A `channels` entry in `excluded` (its shape is "not shown" in the spec) is
 * read by the selection rule: it takes away the channels its own selection selects.
 */
type ChatPick =
  | { mode: 'none' }
  | { mode: 'all'; offOneToOne: boolean | null; offChannels: PickSelection | null; junk: boolean }
  | { mode: 'some'; oneToOne: boolean | null; channels: PickSelection | null };

const chatPick: fc.Arbitrary<ChatPick> = fc.oneof(
  fc.constant({ mode: 'none' as const }),
  fc.record({
    mode: fc.constant('all' as const),
    offOneToOne: fc.option(fc.boolean()),
    offChannels: fc.option(pickSelection),
    junk: fc.boolean(),
  }),
  fc.record({
    mode: fc.constant('some' as const),
    oneToOne: fc.option(fc.boolean()),
    channels: fc.option(pickSelection),
  }),
);

export interface ConfPick {
  tenantSeed: number;
  users: number;
  meetingsPerUser: number;
  owners: PickSelection;
  content: SpecSelection<ContentEntry>;
  chats: ChatPick;
}

export const confPick: fc.Arbitrary<ConfPick> = fc.record({
  tenantSeed: fc.integer({ min: 1, max: 1_000_000 }),
  users: fc.integer({ min: 3, max: 4 }),
  meetingsPerUser: fc.integer({ min: 1, max: 3 }),
  owners: pickSelection,
  content: contentSelection,
  chats: chatPick,
});

/** A small Zoom tenant: a few owners (one inactive, one pending), channels and one-to-one chats. */
export function zoomShape(p: ConfPick) {
  return {
    seed: p.tenantSeed,
    users: p.users,
    meetingsPerUser: p.meetingsPerUser,
    fileSize: 512,
    channels: 3,
    messagesPerChannel: 3,
    oneToOnePeersPerUser: 2,
    messagesPerChat: 3,
  };
}

export function confFilters(tenant: ZoomTenant, p: ConfPick): SpecConfFilters {
  const filters: SpecConfFilters = {
    account_owners: idSelection(
      tenant.users.map((u) => u.id),
      p.owners,
    ),
    content_selections: p.content,
  };
  const channelIds = tenant.channels.map((c) => c.id);
  const c = p.chats;
  if (c.mode === 'all') {
    const excluded: ChatEntry[] = c.offOneToOne === null ? [] : [{ 'one-to-one': c.offOneToOne }];
    if (c.offChannels) excluded.push({ channels: idSelection(channelIds, c.offChannels) });
    // `selected` is not used when all_selected is true: a one-to-one switched off there must change nothing.
    const selected: ChatEntry[] = c.junk
      ? [{ 'one-to-one': false }, { channels: idSelection(channelIds, { all: false, selected: [], excluded: [] }) }]
      : [];
    filters.chats = { all_selected: true, selected, excluded };
  } else if (c.mode === 'some') {
    const selected: ChatEntry[] = [];
    if (c.oneToOne !== null) selected.push({ 'one-to-one': c.oneToOne });
    if (c.channels) selected.push({ channels: idSelection(channelIds, c.channels) });
    // An empty chats selection would mean "no chat": the spec says to omit the key then.
    if (selected.length) filters.chats = { all_selected: false, selected, excluded: [{ 'one-to-one': true }] };
  }
  return filters;
}

export interface EdrivePick {
  tenantSeed: number;
  users: number;
  /** 0 or 1: the last user may have no OneDrive (a failed custodian that holds nothing). */
  withoutDrive: number;
  folderDepth: number;
  /** Per user: whether it is a key, and its folder selection. */
  perUser: Array<{ key: boolean; folders: PickSelection }>;
}

export const edrivePick: fc.Arbitrary<EdrivePick> = fc.record({
  tenantSeed: fc.integer({ min: 1, max: 1_000_000 }),
  users: fc.integer({ min: 2, max: 3 }),
  withoutDrive: fc.integer({ min: 0, max: 1 }),
  folderDepth: fc.integer({ min: 1, max: 3 }),
  perUser: fc.array(fc.record({ key: fc.boolean(), folders: pickSelection }), { minLength: 3, maxLength: 3 }),
});

export function msShape(p: EdrivePick) {
  return {
    seed: p.tenantSeed,
    users: p.users,
    usersWithoutDrive: p.withoutDrive,
    folderDepth: p.folderDepth,
    foldersPerLevel: 2,
    filesPerFolder: 1,
    fileSize: 256,
    deltaPageSize: 7,
  };
}

/** Folder ids of every depth (nested ones included); at least one user is a key. */
export function edriveFilters(sb: MicrosoftSandbox, p: EdrivePick): SpecEdriveFilters {
  const filters: SpecEdriveFilters = {};
  sb.tenant.users.forEach((user, i) => {
    const pick = p.perUser[i % p.perUser.length];
    if (!pick.key && !(i === 0 && !p.perUser.some((u, j) => j < sb.tenant.users.length && u.key))) return;
    const folders = user.drive
      ? sb
          .listItems(user.id)
          .filter((it) => it.kind === 'folder' && it.parentId !== null)
          .map((it) => it.id)
      : [];
    filters[user.id] = {
      ...idSelection(folders, pick.folders),
      filter_type: 'user_folders',
      filter_name: user.displayName,
    };
  });
  return filters;
}
