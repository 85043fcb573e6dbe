// Spec endpoints 6 and 8 for `edrive`: the tenant's users, and the folders of one user's drive.
import { DomainError, invalidInput } from '../../domain/errors.ts';
import { isObject } from '../../domain/filters/selection.ts';
import type { DiscoveryHandler, ProviderContext } from '../types.ts';
import { childrenPage, childrenUrl } from './children.ts';
import {
  classifyNotFound,
  decodeCursor,
  driveUrl,
  encodeCursor,
  graphPathOf,
  isContainer,
  type DriveItem,
  type GraphPage,
} from './graph.ts';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 999;
const USER_SELECT = 'id,displayName,mail,userPrincipalName,jobTitle,department,officeLocation';
const FOLDER_SELECT = 'id,name,size,webUrl,createdDateTime,lastModifiedDateTime,folder,package';
/** Children pages read per call while a page holds files only, so a client is not handed empty pages. */
const MAX_PAGES_PER_CALL = 5;
const MAX_DEPTH = 200;

interface GraphUser {
  id: string;
  displayName?: string | null;
  mail?: string | null;
  userPrincipalName?: string | null;
  jobTitle?: string | null;
  department?: string | null;
  officeLocation?: string | null;
}

interface PathElement {
  id: string;
  name: string;
}

/** The folders cursor: Graph's nextLink, the user and parent it belongs to, the breadcrumb, the count so far. */
interface FoldersCursor {
  l: string;
  u: string;
  p: string | null;
  e: PathElement[];
  c: number;
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LIMIT;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw invalidInput('limit must be a positive integer.', 'limit');
  return Math.min(Number(raw), MAX_LIMIT);
}

export function usersDiscovery(graphUrl: string): DiscoveryHandler {
  return async (ctx, query) => {
    let limit = parseLimit(query.limit);
    let url = `${graphUrl}/users?$select=${USER_SELECT}&$top=${limit}`;
    if (query.marker) {
      const link = decodeCursor(query.marker);
      if (typeof link !== 'string' || graphPathOf(graphUrl, link) !== '/users') {
        throw invalidInput('marker is not a next_marker returned by this endpoint.', 'marker');
      }
      url = link;
      // The link carries the page size it was made with; report that one.
      const top = Number(new URL(link).searchParams.get('$top'));
      if (Number.isInteger(top) && top > 0) limit = Math.min(top, MAX_LIMIT);
    }
    // With $select, listing users costs one unit less in the directory's throttling model (reference §2.2).
    const page = await ctx.http.json<GraphPage<GraphUser>>(url, { cost: 1 });
    const next = page?.['@odata.nextLink'];
    return {
      entries: (page?.value ?? []).map((u) => ({
        id: u.id,
        display_name: u.displayName ?? null,
        mail: u.mail ?? null,
        user_principal_name: u.userPrincipalName ?? null,
        job_title: u.jobTitle ?? null,
        department: u.department ?? null,
        office_location: u.officeLocation ?? null,
      })),
      limit,
      next_marker: next && graphPathOf(graphUrl, next) === '/users' ? encodeCursor(next) : null,
    };
  };
}

function readFoldersCursor(graphUrl: string, raw: string, userId: string): FoldersCursor {
  const c = decodeCursor(raw);
  const valid =
    isObject(c) &&
    typeof c.l === 'string' &&
    graphPathOf(graphUrl, c.l)?.endsWith('/children') === true &&
    c.u === userId &&
    Array.isArray(c.e) &&
    typeof c.c === 'number';
  if (!valid) throw invalidInput('cursor is not a _next value returned by this endpoint for this user_id.', 'cursor');
  return c as unknown as FoldersCursor;
}

function notFound(error: unknown, userId: string, parentId: string | undefined): unknown {
  switch (classifyNotFound(error)) {
    case 'no_drive':
      return new DomainError(
        'not_found',
        `User ${userId} has no provisioned OneDrive (it is created when the user first signs in to OneDrive, and only for licensed users).`,
      );
    case 'no_user':
      return new DomainError('not_found', `User ${userId} not found in the tenant.`);
    case 'no_item':
      return new DomainError('not_found', `Folder ${parentId ?? 'root'} not found in the OneDrive of user ${userId}.`);
    default:
      return error;
  }
}

/** Breadcrumb of a folder: its ancestors below the drive root, then itself (empty for the root). */
async function pathElements(
  ctx: ProviderContext,
  graphUrl: string,
  userId: string,
  folderId: string,
): Promise<PathElement[]> {
  const out: PathElement[] = [];
  let current: string | undefined = folderId;
  for (let depth = 0; current !== undefined && depth < MAX_DEPTH; depth++) {
    const url = driveUrl(
      graphUrl,
      userId,
      `/items/${encodeURIComponent(current)}?$select=id,name,root,folder,package,parentReference`,
    );
    const item: DriveItem = await ctx.http.json<DriveItem>(url, { cost: 1 });
    if (item.root) break;
    if (depth === 0 && !isContainer(item)) throw invalidInput(`parent_id ${folderId} is not a folder.`, 'parent_id');
    out.unshift({ id: item.id, name: item.name ?? '' });
    current = item.parentReference?.id;
  }
  return out;
}

export function foldersDiscovery(graphUrl: string): DiscoveryHandler {
  return async (ctx, query) => {
    const userId = query.user_id;
    if (!userId)
      throw invalidInput('user_id is required: the id of a user from GET /collections/{id}/users.', 'user_id');
    const parentId = query.parent_id || undefined;
    try {
      let cursor: FoldersCursor;
      if (query.cursor) {
        cursor = readFoldersCursor(graphUrl, query.cursor, userId);
      } else {
        const elements = parentId ? await pathElements(ctx, graphUrl, userId, parentId) : [];
        cursor = {
          l: childrenUrl(graphUrl, userId, parentId, FOLDER_SELECT),
          u: userId,
          p: parentId ?? null,
          e: elements,
          c: 0,
        };
      }
      const results: unknown[] = [];
      let next: string | null = cursor.l;
      for (let pages = 0; next && pages < MAX_PAGES_PER_CALL && results.length === 0; pages++) {
        const page = await childrenPage(ctx.http, graphUrl, next);
        for (const item of page.items) {
          if (!isContainer(item)) continue;
          results.push({
            id: item.id,
            name: item.name ?? '',
            link: item.webUrl ?? null,
            size: item.size ?? 0,
            created_datetime: item.createdDateTime ?? null,
            last_modified_datetime: item.lastModifiedDateTime ?? null,
            sorted_path_elements: [...cursor.e, { id: item.id, name: item.name ?? '' }],
          });
        }
        next = page.next;
      }
      const count = cursor.c + results.length;
      return {
        results,
        total_count_label: `${count}${next ? '+' : ''} folder${count === 1 && !next ? '' : 's'}`,
        _next: next ? encodeCursor({ ...cursor, l: next, c: count } satisfies FoldersCursor) : null,
      };
    } catch (error) {
      throw notFound(error, userId, parentId);
    }
  };
}
