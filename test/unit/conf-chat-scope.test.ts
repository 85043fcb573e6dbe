import { describe, expect, it } from 'vitest';
import { chatScope, type ConfFilters } from '../../src/domain/filters/conf.ts';
import { selectsId } from '../../src/domain/filters/selection.ts';

const base = {
  account_owners: { all_selected: true, selected: [], excluded: [] },
  content_selections: { all_selected: true, selected: [], excluded: [] },
};
const withChats = (chats: unknown) => ({ ...base, chats }) as unknown as ConfFilters;
/** Which of channels a, b, c the filters collect (literal expectations from the spec's selection rule). */
const channelsOn = (chats: unknown) => {
  const scope = chatScope(withChats(chats)).channels;
  return ['a', 'b', 'c'].filter((id) => scope !== null && selectsId(scope, id));
};
const all = (excluded: unknown[]) => ({ all_selected: true, selected: [], excluded });

describe('conf chats: everything minus `excluded`, where a channels entry takes away what its own selection selects', () => {
  it('keeps every channel when nothing is excluded, and none without a chats key', () => {
    expect(channelsOn(all([]))).toEqual(['a', 'b', 'c']);
    expect(chatScope(base as unknown as ConfFilters)).toEqual({ oneToOne: false, channels: null });
  });

  it('excludes every channel with an all-selected channels entry, but keeps one-to-one', () => {
    const chats = all([{ channels: { all_selected: true, selected: [], excluded: [] } }]);
    expect(channelsOn(chats)).toEqual([]);
    expect(chatScope(withChats(chats)).oneToOne).toBe(true);
  });

  it('excludes all channels but the nested exclusions, or only the nested selection', () => {
    expect(channelsOn(all([{ channels: { all_selected: true, selected: [], excluded: [{ id: 'b' }] } }]))).toEqual([
      'b',
    ]);
    expect(
      channelsOn(all([{ channels: { all_selected: false, selected: [{ id: 'a' }, { id: 'c' }], excluded: [] } }])),
    ).toEqual(['b']);
  });

  it('switches one-to-one off through excluded, channels untouched', () => {
    const chats = all([{ 'one-to-one': true }]);
    expect(chatScope(withChats(chats)).oneToOne).toBe(false);
    expect(channelsOn(chats)).toEqual(['a', 'b', 'c']);
  });
});
