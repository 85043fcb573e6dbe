import type { FilterIssue } from '../../connectors/types.ts';
import { checkIdEntry, checkSelection, escapePointer, isObject, type Selection } from './selection.ts';

export interface UserFolders extends Selection<{ id: string }> {
  filter_type: 'user_folders';
  filter_name: string;
}

/** Keyed by drive user id; only users that are keys are collected. */
export type EdriveFilters = Record<string, UserFolders>;

export function validateEdriveFilters(value: unknown): FilterIssue[] {
  if (!isObject(value)) return [{ pointer: '', message: 'sync_filters must be an object keyed by user id.' }];
  const issues: FilterIssue[] = [];
  for (const [userId, filter] of Object.entries(value)) {
    const pointer = `/${escapePointer(userId)}`;
    if (!isObject(filter)) {
      issues.push({
        pointer,
        message: `keys of an edrive filter are user ids, each with {all_selected, selected, excluded, filter_type: "user_folders", filter_name}.`,
      });
      continue;
    }
    checkSelection(filter, pointer, issues, checkIdEntry, ['filter_type', 'filter_name']);
    if (filter.filter_type !== 'user_folders') issues.push({ pointer: `${pointer}/filter_type`, message: 'must be "user_folders".' });
    if (typeof filter.filter_name !== 'string') issues.push({ pointer: `${pointer}/filter_name`, message: 'must be a string.' });
  }
  return issues;
}
