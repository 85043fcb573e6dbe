// The oracle itself, on the spec's rules one at a time (no server): a wrong reading here would make every property
// test compare against the wrong set.
import { describe, expect, it } from 'vitest';
import { buildTenant } from '../../sandbox/microsoft/seed.ts';
import { seedTenant } from '../../sandbox/zoom/seed.ts';
import { confOracle, edriveOracle, type SpecConfFilters, type SpecEdriveFilters } from './oracle.ts';

const zoom = seedTenant({
  seed: 5,
  users: 4,
  meetingsPerUser: 3,
  fileSize: 64,
  channels: 3,
  messagesPerChannel: 2,
  oneToOnePeersPerUser: 2,
  messagesPerChat: 2,
  now: new Date(),
});
const [a, b] = zoom.users;
const all = { all_selected: true, selected: [], excluded: [] };
const none = { all_selected: false, selected: [], excluded: [] };
const kinds = (m: Map<string, { kind: string }>) => new Set([...m.values()].map((e) => e.kind));
const holders = (m: Map<string, { custodians: string[] }>) => new Set([...m.values()].flatMap((e) => e.custodians));

describe('the conf oracle', () => {
  it('all_selected takes everything minus excluded and ignores selected; otherwise only selected, ignoring excluded', () => {
    const minusA = confOracle(zoom, {
      account_owners: { all_selected: true, selected: [{ id: a.id }], excluded: [{ id: a.id }] },
      content_selections: all,
    });
    expect(holders(minusA).has(a.id)).toBe(false);
    expect(holders(minusA).has(b.id)).toBe(true);
    const onlyA = confOracle(zoom, {
      account_owners: { all_selected: false, selected: [{ id: a.id }], excluded: [{ id: a.id }] },
      content_selections: all,
    });
    expect([...holders(onlyA)]).toEqual([a.id]);
    expect(onlyA.size).toBe(
      zoom.meetingsOf(a.id).reduce((n, m) => n + 1 + m.recording_files.length + (m.summary ? 1 : 0), 0),
    );
  });

  it('switches a content key only with true, and has no chat without a chats key', () => {
    const audioOff: SpecConfFilters = {
      account_owners: all,
      content_selections: {
        all_selected: false,
        selected: [{ video: true }, { audio: false }],
        excluded: [{ video: true }],
      },
    };
    expect(kinds(confOracle(zoom, audioOff))).toEqual(new Set(['meeting', 'recording_video']));
    const videoOut: SpecConfFilters = {
      account_owners: all,
      content_selections: { all_selected: true, selected: [], excluded: [{ video: true }, { audio: false }] },
    };
    const got = kinds(confOracle(zoom, videoOut));
    expect(got.has('recording_video')).toBe(false);
    expect(got.has('recording_audio')).toBe(true);
    expect(got.has('chat_message') || got.has('channel_message')).toBe(false);
  });

  it('reads chats: all minus one-to-one, and channels by their own selection reached through a member owner', () => {
    const noOneToOne = kinds(
      confOracle(zoom, {
        account_owners: all,
        content_selections: none,
        chats: { all_selected: true, selected: [], excluded: [{ 'one-to-one': true }] },
      }),
    );
    expect(noOneToOne).toEqual(new Set(['meeting', 'channel_message']));
    const channel = zoom.channels[0];
    const outsider = zoom.users.find((u) => u.status !== 'pending' && !channel.memberIds.includes(u.id));
    const pick = (owner: string) =>
      confOracle(zoom, {
        account_owners: { all_selected: false, selected: [{ id: owner }], excluded: [] },
        content_selections: none,
        chats: {
          all_selected: false,
          selected: [{ channels: { all_selected: false, selected: [{ id: channel.id }], excluded: [] } }],
          excluded: [],
        },
      });
    const viaMember = [...pick(channel.memberIds[0]).values()].filter((e) => e.kind === 'channel_message');
    expect(viaMember.map((e) => e.sourceId).sort()).toEqual(zoom.channelMessages[channel.id].map((m) => m.id).sort());
    if (outsider) expect([...pick(outsider.id).values()].some((e) => e.kind === 'channel_message')).toBe(false);
  });
});

describe('the edrive oracle', () => {
  const model = buildTenant({
    seed: 3,
    users: 2,
    usersWithoutDrive: 0,
    folderDepth: 2,
    foldersPerLevel: 2,
    filesPerFolder: 1,
    fileSize: 16,
  });
  const [u, v] = model.tenant.users;
  const items = model.preorder(u.drive!);
  const driveOf = (id: string) => (id === u.id ? items : id === v.id ? model.preorder(v.drive!) : null);
  const nested = items.find((i) => i.kind === 'folder' && i.parentId !== null && i.parentId !== items[0].id)!;
  const below = (id: string) =>
    items.filter((i) => {
      for (let p: string | null = i.id; p; p = items.find((x) => x.id === p)!.parentId) if (p === id) return true;
      return false;
    });
  const entry = (sel: Partial<SpecEdriveFilters[string]>) => ({
    all_selected: false,
    selected: [],
    excluded: [],
    filter_type: 'user_folders' as const,
    filter_name: 'x',
    ...sel,
  });

  it('takes every item but the root, minus a nested excluded folder and what is beneath it', () => {
    const got = edriveOracle(driveOf, {
      [u.id]: entry({ all_selected: true, excluded: [{ id: nested.id }], selected: [{ id: nested.id }] }),
    });
    const gone = new Set(below(nested.id).map((i) => i.id));
    expect([...got.values()].map((e) => e.sourceId).sort()).toEqual(
      items
        .filter((i) => i.parentId !== null && !gone.has(i.id))
        .map((i) => i.id)
        .sort(),
    );
    expect(got.has(`folder|${nested.parentId}`)).toBe(true);
  });

  it('takes a selected nested folder and what is beneath it, not its ancestors, and nothing of users that are not keys', () => {
    const got = edriveOracle(driveOf, {
      [u.id]: entry({ selected: [{ id: nested.id }], excluded: [{ id: nested.id }] }),
    });
    expect([...got.values()].map((e) => e.sourceId).sort()).toEqual(
      below(nested.id)
        .map((i) => i.id)
        .sort(),
    );
    expect([...got.values()].every((e) => e.custodians[0] === u.id)).toBe(true);
  });
});
