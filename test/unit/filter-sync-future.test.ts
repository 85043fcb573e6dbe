import { describe, expect, it } from 'vitest';
import { validateConfFilters } from '../../src/domain/filters/conf.ts';
import { validateEdriveFilters } from '../../src/domain/filters/edrive.ts';

const drive = (extra: Record<string, unknown>) => ({
  u1: { all_selected: true, selected: [], excluded: [], filter_type: 'user_folders', filter_name: 'U1', ...extra },
});
const everyone = { all_selected: true, selected: [], excluded: [] };

describe('sync_future, a common selection field of the original product', () => {
  it('is accepted as true on an edrive user filter and on conf selections', () => {
    expect(validateEdriveFilters(drive({ sync_future: true }))).toEqual([]);
    expect(
      validateConfFilters({ account_owners: { ...everyone, sync_future: true }, content_selections: everyone }),
    ).toEqual([]);
  });

  it('is refused as false or a non-boolean, naming the field, rather than ignored', () => {
    expect(validateEdriveFilters(drive({ sync_future: false }))).toEqual([
      expect.objectContaining({ pointer: '/u1/sync_future' }),
    ]);
    expect(validateEdriveFilters(drive({ sync_future: 'yes' }))).toEqual([
      expect.objectContaining({ pointer: '/u1/sync_future' }),
    ]);
  });

  it('leaves other unknown keys refused', () => {
    expect(validateEdriveFilters(drive({ include_trash: true }))).toEqual([
      expect.objectContaining({ pointer: '/u1/include_trash' }),
    ]);
  });
});
