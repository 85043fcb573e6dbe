// driveItems as the engine stores them, and the download of a file's bytes.
import type { Readable } from 'node:stream';
import { ProviderError, type ProviderHttp } from '../../sync/provider-http.ts';
import type { ContentSource, ItemInput } from '../types.ts';
import { driveUrl, identityOf, type DriveItem } from './graph.ts';
import { QuickXorHash } from './quickxorhash.ts';

/** Fields the connector reads from a single driveItem GET or a children listing. */
export const ITEM_SELECT =
  'id,name,size,webUrl,eTag,cTag,createdDateTime,lastModifiedDateTime,createdBy,lastModifiedBy,fileSystemInfo,parentReference,file,folder,package,root,remoteItem';

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
      ? { created_datetime: item.fileSystemInfo.createdDateTime ?? null, last_modified_datetime: item.fileSystemInfo.lastModifiedDateTime ?? null }
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
    metadata: { ...commonMetadata(item, where), child_count: item.folder?.childCount ?? null, package_type: item.package?.type ?? null },
  };
}

export function fileInput(item: DriveItem, where: Placement): ItemInput {
  const remote = item.remoteItem;
  return {
    kind: 'file',
    ...common(item, where),
    size: item.size ?? null,
    mimeType: item.file?.mimeType ?? null,
    // cTag changes with the content only, so a rename or move does not download the file again.
    version: item.cTag ?? item.eTag ?? null,
    metadata: {
      ...commonMetadata(item, where),
      c_tag: item.cTag ?? null,
      quick_xor_hash: item.file?.hashes?.quickXorHash ?? null,
      ...(remote && {
        remote_item: { id: remote.id ?? null, drive_id: remote.parentReference?.driveId ?? null, name: remote.name ?? null, web_url: remote.webUrl ?? null },
      }),
    },
  };
}

/**
 * GET …/content answers 302 to a pre-authenticated URL on another host; ProviderHttp follows it without the
 * bearer token. Such URLs expire (the host then answers 401), so each failure of that kind asks Graph for a
 * fresh one, and a resumed download asks for the remaining bytes with Range.
 */
export function contentSource(http: ProviderHttp, graphUrl: string, userId: string, item: DriveItem): ContentSource {
  const url = driveUrl(graphUrl, userId, `/items/${encodeURIComponent(item.id)}/content`);
  const hash = item.file?.hashes?.quickXorHash;
  return {
    async open(offset, signal) {
      for (let refreshes = 0; ; refreshes++) {
        try {
          const res = await http.stream(url, { range: offset > 0 ? { start: offset } : undefined, cost: 1, signal });
          if (res.status === 206) {
            const start = /^bytes (\d+)-/.exec(res.headers['content-range'] ?? '')?.[1];
            if (Number(start) === offset) return { body: res.body, partial: true };
            discard(res.body);
            throw new ProviderError(`the download host answered a range that does not start at byte ${offset}`, { code: 'invalid_response', retryable: true, status: 206 });
          }
          if (res.status === 200) return { body: res.body, partial: false };
          discard(res.body);
          throw new ProviderError(`the content request answered HTTP ${res.status}`, { code: 'invalid_response', retryable: false, status: res.status });
        } catch (error) {
          if (!isExpiredDownloadUrl(error) || refreshes >= MAX_URL_REFRESHES) throw error;
        }
      }
    },
    ...(hash && { providerHash: { type: 'quickXorHash', value: hash, create: () => new QuickXorHash() } }),
  };
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
