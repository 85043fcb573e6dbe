import { describe, expect, it } from 'vitest';
import { readState, startingState } from '../../src/connectors/onedrive/state.ts';
import { FolderTree } from '../../src/connectors/onedrive/tree.ts';

describe('OneDrive cursors between runs', () => {
  // A unit job's cursors are parsed once per run and process (unit-memo.ts) and handed to every attempt of every
  // unit there: a round that changed them would start a unit's next attempt from folders it never committed, so a
  // folder renamed or deleted in the replayed delta page would look unchanged (descendants keep their old paths).
  it("a round started from the previous run's cursors leaves them as they were", () => {
    const stored = {
      v: 1,
      users: {
        u1: {
          phase: 'done',
          link: 'https://graph/delta?token=1',
          full: false,
          folders: { root: [null, '', 'e0'], f1: ['root', 'Old', 'e1'] },
        },
      },
    };
    const previous = readState(JSON.parse(JSON.stringify(stored)))!;
    const st = startingState(previous.users.u1, () => true);
    const tree = new FolderTree(st.folders);
    tree.set('f1', ['root', 'New', 'e2']);
    tree.set('f2', ['f1', 'Child', 'e3']);
    tree.delete('root');
    expect(previous.users.u1.folders).toEqual(stored.users.u1.folders);
  });
});
