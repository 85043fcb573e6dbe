import type { FilterIssue } from './selection.ts';
import { checkIdEntry, checkSelection, escapePointer, isObject, type Selection } from './selection.ts';

export interface UserFolders extends Selection<{ id: string }> {
  filter_type: 'user_folders';
  filter_name: string;
}

/** Keyed by drive user id; only users that are keys are collected. */
export type EdriveFilters = Record<string, UserFolders>;

/** Keys of a `conf` filter: sent to an edrive collection they are a mistake, not user ids. */
const CONF_KEYS = new Set(['account_owners', 'content_selections', 'chats', 'users', 'channels', 'folders']);
const USERS_HINT = 'the keys of an edrive sync_filters object are user ids from GET /v1/collections/{id}/users';

export function validateEdriveFilters(value: unknown): FilterIssue[] {
  if (!isObject(value)) return [{ pointer: '', message: 'sync_filters must be an object keyed by user id.' }];
  const issues: FilterIssue[] = [];
  if (Object.keys(value).length === 0)
    return [{ pointer: '', message: `nothing is selected: ${USERS_HINT}, each with the folders to collect.` }];
  for (const [userId, filter] of Object.entries(value)) {
    const pointer = `/${escapePointer(userId)}`;
    if (CONF_KEYS.has(userId)) {
      issues.push({
        pointer,
        message: `"${userId}" is not a user id: ${USERS_HINT} (this looks like a conf collection's filter key).`,
      });
      continue;
    }
    if (!isObject(filter)) {
      issues.push({
        pointer,
        message: `keys of an edrive filter are user ids, each with {all_selected, selected, excluded, filter_type: "user_folders", filter_name}.`,
      });
      continue;
    }
    checkSelection(filter, pointer, issues, checkIdEntry, ['filter_type', 'filter_name']);
    if (filter.filter_type !== 'user_folders')
      issues.push({ pointer: `${pointer}/filter_type`, message: 'must be "user_folders".' });
    if (typeof filter.filter_name !== 'string')
      issues.push({ pointer: `${pointer}/filter_name`, message: 'must be a string.' });
  }
  return issues;
}
