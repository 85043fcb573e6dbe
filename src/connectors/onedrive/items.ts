// driveItems as the engine stores them, and the download of a file's bytes.
import type { Readable } from 'node:stream';
import { type ProviderHttp } from '../../provider/provider-http.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import {
  type CollectContext,
  type CollectEvent,
  type ContentSource,
  type ItemInput,
  type ProviderContext,
} from '../types.ts';
import { classifyNotFound, driveUrl, identityOf, isContainer, providerMessage, type DriveItem } from './graph.ts';
import { QUICK_XOR_MODULE, QuickXorHash } from './quickxorhash.ts';
import { ContentGoneError } from '../../domain/run-failures.ts';
import { driveOwner, drivePath, ownedItem, type DriveOwner } from './owner.ts';

/**
 * Fields the connector reads from a single driveItem GET or a children listing. The download URL only comes when
 * named (reference §2.4): with it a file's content is one request instead of /content's 302 and its target.
 */
export const ITEM_SELECT =
  'id,name,size,webUrl,eTag,cTag,createdDateTime,lastModifiedDateTime,createdBy,lastModifiedBy,fileSystemInfo,parentReference,file,folder,package,root,remoteItem,@microsoft.graph.downloadUrl';

/** Fresh download URLs asked for after the download host refuses an expired one. */
const MAX_URL_REFRESHES = 3;

export interface Placement {
  userId: string;
  /** The parent folder's drive path (`''` for the root). */
  parentPath: string;
}

function common(item: DriveItem, where: Placement) {
  return {
    sourceId: item.id,
    name: item.name ?? '',
    path: `${where.parentPath}/${item.name ?? ''}`,
    custodian: where.userId,
    createdAt: item.createdDateTime ?? null,
    modifiedAt: item.lastModifiedDateTime ?? null,
  };
}

function commonMetadata(item: DriveItem, where: Placement): Record<string, unknown> {
  return {
    user_id: where.userId,
    drive_id: item.parentReference?.driveId ?? null,
    parent_id: item.parentReference?.id ?? null,
    web_url: item.webUrl ?? null,
    e_tag: item.eTag ?? null,
    created_by: identityOf(item.createdBy),
    last_modified_by: identityOf(item.lastModifiedBy),
    file_system_info: item.fileSystemInfo
      ? {
          created_datetime: item.fileSystemInfo.createdDateTime ?? null,
          last_modified_datetime: item.fileSystemInfo.lastModifiedDateTime ?? null,
        }
      : null,
  };
}

export function folderInput(item: DriveItem, where: Placement): ItemInput {
  return {
    kind: 'folder',
    ...common(item, where),
    size: item.size ?? null,
    mimeType: null,
    // Folders have no cTag on OneDrive for Business; the eTag changes with any change to the folder.
    version: item.eTag ?? null,
    metadata: {
      ...commonMetadata(item, where),
      child_count: item.folder?.childCount ?? null,
      package_type: item.package?.type ?? null,
    },
  };
}

export function fileInput(item: DriveItem, where: Placement): ItemInput {
  const remote = item.remoteItem;
  return {
    kind: 'file',
    ...common(item, where),
    size: item.size ?? null,
    mimeType: item.file?.mimeType ?? null,
    // The content's own hash, or the cTag: both change with the content only, so a rename or move does not
    // download the file again. The hash first: delta never carries the cTag on ODB, and a delta entry that
    // carries its authors is used as it is (items are read again only when delta left something out).
    version: item.file?.hashes?.quickXorHash ?? item.cTag ?? item.eTag ?? null,
    metadata: {
      ...commonMetadata(item, where),
      c_tag: item.cTag ?? null,
      quick_xor_hash: item.file?.hashes?.quickXorHash ?? null,
      ...(remote && {
        remote_item: {
          id: remote.id ?? null,
          drive_id: remote.parentReference?.driveId ?? null,
          name: remote.name ?? null,
          web_url: remote.webUrl ?? null,
        },
      }),
    },
  };
}

/**
 * The item's listed `@microsoft.graph.downloadUrl` when it has one: one request, sent without the bearer token
 * (the URL is the credential). Otherwise GET …/content, which answers 302 to such a URL on another host;
 * ProviderHttp follows it without the bearer token. These URLs expire (the host then answers 401), so each
 * failure of that kind goes back to /content (or, for a resume, asks Graph for a fresh URL). A resumed download
 * sends Range to the download URL itself, "not to the request for /content" (reference §2.7).
 */
export function contentSource(http: ProviderHttp, graphUrl: string, userId: string, item: DriveItem): ContentSource {
  const url = driveUrl(graphUrl, userId, `/items/${encodeURIComponent(item.id)}/content`);
  const itemUrl = driveUrl(
    graphUrl,
    userId,
    `/items/${encodeURIComponent(item.id)}?$select=id,@microsoft.graph.downloadUrl`,
  );
  const graphOrigin = new URL(graphUrl).origin;
  const hash = item.file?.hashes?.quickXorHash;
  let downloadUrl = listedDownloadUrl(item);
  const freshDownloadUrl = async (signal: AbortSignal): Promise<string> => {
    const got = await http.json<DriveItem>(itemUrl, { cost: 1, signal });
    const link = listedDownloadUrl(got);
    if (!link) {
      throw new ProviderError('OneDrive gave no download URL for the item', {
        code: 'invalid_response',
        retryable: true,
      });
    }
    return link;
  };
  return {
    async open(offset, signal) {
      for (let refreshes = 0; ; refreshes++) {
        try {
          let res;
          if (offset > 0 || downloadUrl) {
            downloadUrl ??= await freshDownloadUrl(signal);
            // The download URL is the credential: no bearer token goes with it.
            const range = offset > 0 ? { start: offset } : undefined;
            res = await http.stream(downloadUrl, { ...(range && { range }), auth: false, cost: 1, signal });
          } else {
            res = await http.stream(url, { cost: 1, signal });
            downloadUrl = new URL(res.finalUrl).origin === graphOrigin ? undefined : res.finalUrl;
          }
          if (res.status === 206) {
            const start = /^bytes (\d+)-/.exec(res.headers['content-range'] ?? '')?.[1];
            if (Number(start) === offset) return { body: res.body, partial: true };
            discard(res.body);
            throw new ProviderError(`the download host answered a range that does not start at byte ${offset}`, {
              code: 'invalid_response',
              retryable: true,
              status: 206,
            });
          }
          if (res.status === 200) return { body: res.body, partial: false };
          discard(res.body);
          throw new ProviderError(`the content request answered HTTP ${res.status}`, {
            code: 'invalid_response',
            retryable: false,
            status: res.status,
          });
        } catch (error) {
          // By HTTP semantics, whatever Graph's code: the item is gone since it was listed.
          if (isMissingItem(error))
            throw new ContentGoneError(
              'OneDrive answered 404 for the content: the item was deleted since it was listed',
              { cause: error },
            );
          if (!isExpiredDownloadUrl(error) || refreshes >= MAX_URL_REFRESHES) throw error;
          downloadUrl = undefined;
        }
      }
    },
    ...(hash && {
      providerHash: { type: 'quickXorHash', value: hash, create: () => new QuickXorHash(), threaded: QUICK_XOR_MODULE },
    }),
  };
}

function listedDownloadUrl(item: DriveItem | undefined): string | undefined {
  const link = item?.['@microsoft.graph.downloadUrl'];
  return typeof link === 'string' && /^https?:/.test(link) ? link : undefined;
}

/** Drops a body nobody will read; undici reports the abort as an error event, which must not go unhandled. */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/**
 * A 401 that reaches the caller as a plain HTTP error came from the download host: Graph's own 401s are
 * turned into a token refresh by ProviderHttp (and surface as `auth_rejected` when that does not help).
 */
function isExpiredDownloadUrl(error: unknown): boolean {
  return error instanceof ProviderError && error.code === 'http_error' && error.status === 401;
}

/** What a following run needs to fetch a drive item again (its retry piece). */
export interface DriveRetry {
  userId: string;
  id: string;
  parentPath: string;
}

/**
 * A 404 on an item's URL, whatever Graph's code or message: the item does not exist (any more). Its drive was
 * just listed, so the code (which varies: itemNotFound, resourceNotFound, none) does not decide.
 */
export function isMissingItem(error: unknown): boolean {
  return error instanceof ProviderError && error.status === 404 && classifyNotFound(error) !== 'no_user';
}

/** A failure of one piece; refused credentials, a missing user or drive, and aborts concern more than that. */
export function isPieceFailure(error: unknown): error is ProviderError {
  if (!(error instanceof ProviderError) || error.code === 'auth_rejected' || error.code === 'aborted') return false;
  const missing = classifyNotFound(error);
  return missing !== 'no_user' && missing !== 'no_drive';
}

export type Fetched = { ok: true; item: DriveItem } | { ok: false; gone: boolean; reason: string };

/** One driveItem with every field the connector reads. */
export async function fetchDriveItem(
  ctx: ProviderContext,
  graphUrl: string,
  userId: string,
  id: string,
): Promise<Fetched> {
  const url = driveUrl(graphUrl, userId, `/items/${encodeURIComponent(id)}?$select=${ITEM_SELECT}`);
  try {
    return { ok: true, item: await ctx.http.json<DriveItem>(url, { cost: 1 }) };
  } catch (error) {
    if (isMissingItem(error))
      return { ok: false, gone: true, reason: 'deleted at the source between its listing and its collection' };
    if (!isPieceFailure(error)) throw error;
    const said = providerMessage(error);
    return {
      ok: false,
      gone: false,
      reason: `reading OneDrive item ${id} of user ${userId} failed: ${error.message}${said ? ` (Microsoft Graph: ${said})` : ''}`,
    };
  }
}

export function driveItemEvent(
  ctx: ProviderContext,
  graphUrl: string,
  userId: string,
  item: DriveItem,
  parentPath: string,
): CollectEvent {
  const where = { userId, parentPath };
  if (isContainer(item)) return { type: 'item', item: folderInput(item, where) };
  if (!item.file) return { type: 'item', item: fileInput(item, where) };
  return { type: 'item', item: fileInput(item, where), content: contentSource(ctx.http, graphUrl, userId, item) };
}

/** Listed, then gone before it could be read: not present, and deleted at the source. */
export function* vanished(
  userId: string,
  entry: Pick<DriveItem, 'id' | 'name' | 'folder' | 'package' | 'root'>,
  reason: string,
): Generator<CollectEvent> {
  const kind = isContainer(entry) ? 'folder' : 'file';
  yield { type: 'not_present', custodian: userId, kind, sourceId: entry.id, name: entry.name ?? entry.id, reason };
  yield { type: 'deleted', kind, sourceId: entry.id };
}

/**
 * The retry list: each failed piece read again by id (a failed download comes back with its item, whose
 * path gives the parent folder's path).
 */
export function retryDrivePieces(graphUrl: string) {
  return async function* retry(
    ctx: CollectContext,
    pieces: Array<{ unit: string; kind: string; sourceId: string; name: string; piece: unknown }>,
  ): AsyncGenerator<CollectEvent> {
    const owners = new Map<string, DriveOwner>();
    for (const p of pieces) {
      const target = retryTarget(p);
      if (!target) continue;
      const got = await fetchDriveItem(ctx, graphUrl, target.userId, target.id);
      if (got.ok) {
        let owner = owners.get(target.userId);
        if (!owner) owners.set(target.userId, (owner = await driveOwner(ctx, graphUrl, target.userId)));
        const ev = driveItemEvent(ctx, graphUrl, target.userId, got.item, target.parentPath);
        yield ev.type === 'item' ? { ...ev, item: ownedItem(ev.item, owner) } : ev;
      } else if (got.gone)
        yield* vanished(
          target.userId,
          { id: target.id, name: p.name, ...(p.kind === 'folder' && { folder: {} }) },
          got.reason,
        );
      else
        yield {
          type: 'error',
          reason: got.reason,
          kind: p.kind,
          sourceId: p.sourceId,
          name: p.name,
          custodian: target.userId,
          retry: target,
        };
    }
  };
}

function retryTarget(p: { unit: string; sourceId: string; piece: unknown }): DriveRetry | undefined {
  const piece = p.piece as (Partial<DriveRetry> & { item?: ItemInput }) | null;
  if (piece && typeof piece.userId === 'string' && typeof piece.id === 'string' && typeof piece.parentPath === 'string')
    return piece as DriveRetry;
  const item = piece?.item;
  if (item && typeof item.path === 'string' && item.custodian) {
    const path = drivePath(item.path);
    return { userId: item.custodian, id: p.sourceId, parentPath: path.slice(0, path.lastIndexOf('/')) };
  }
  return undefined;
}
