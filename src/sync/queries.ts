import type { Readable } from 'node:stream';
import type { BlobStore } from '../blobs/types.ts';
import { AppError, notFound } from '../domain/errors.ts';
import type { Database } from '../store/db.ts';
import { ItemRepo, previousVersionsOf } from '../store/items.ts';
import { RunRepo } from '../store/runs.ts';
import { itemVersionView, itemView, runView, type ItemVersionView, type ItemView, type RunView } from './views.ts';

/** Byte range of a content request, both ends inclusive; undefined = the whole blob. */
export type ByteRange = { start: number; end: number };

export interface ContentResponse {
  item: ItemView;
  size: number;
  range: ByteRange | undefined;
  body: Readable;
}

export interface VersionContentResponse {
  version: ItemVersionView;
  sha256: string;
  size: number;
  range: ByteRange | undefined;
  body: Readable;
}

export const RUN_ERRORS_SHOWN = 100;

/**
 * The read side behind the items routes. Callers have already checked that the collection belongs to the
 * caller's account; tombstoned items (auto collections whose source deleted them) are invisible here.
 */
export function createSyncQueries(deps: { db: Database; blobs: BlobStore }) {
  const items = new ItemRepo(deps.db);
  const runs = new RunRepo(deps.db);

  const visibleItem = async (collectionId: string, itemId: string) => {
    const row = await items.get(collectionId, itemId);
    if (!row || row.tombstoned_at) throw notFound('Item');
    return row;
  };

  return {
    async listItems(collectionId: string, q: { cursor?: string; limit: number; kind?: string; custodian?: string }) {
      const page = await items.list(collectionId, { kind: q.kind, custodian: q.custodian }, { cursor: q.cursor, limit: q.limit });
      return { items: page.rows.map(itemView), cursor: page.cursor };
    },

    async getItem(collectionId: string, itemId: string): Promise<ItemView> {
      return itemView(await visibleItem(collectionId, itemId));
    },

    /** Throws 404 when the item has no stored content, 416 when the range cannot be satisfied. */
    async openContent(collectionId: string, itemId: string, rangeHeader: string | undefined): Promise<ContentResponse> {
      const row = await visibleItem(collectionId, itemId);
      if (row.content_state !== 'stored' || !row.sha256) throw notFound('Content of this item');
      const stat = await deps.blobs.stat(row.sha256);
      if (!stat) throw notFound('Content of this item');
      const range = parseRange(rangeHeader, stat.size);
      const body = await deps.blobs.read(row.sha256, range);
      return { item: itemView(row), size: stat.size, range, body };
    },

    /** The item's superseded versions, oldest first. */
    async listVersions(collectionId: string, itemId: string): Promise<{ item_id: string; current_version_number: number; versions: ItemVersionView[] }> {
      const versions = previousVersionsOf(await visibleItem(collectionId, itemId));
      return { item_id: itemId, current_version_number: versions.length + 1, versions: versions.map((v, i) => itemVersionView(v, i + 1)) };
    },

    /** A superseded version's bytes; 404 when there is no such version or its content is not kept. */
    async openVersionContent(collectionId: string, itemId: string, versionNumber: number, rangeHeader: string | undefined): Promise<VersionContentResponse> {
      const versions = previousVersionsOf(await visibleItem(collectionId, itemId));
      const v = versions[versionNumber - 1];
      if (!v) throw notFound('Version');
      if (!v.sha256 || !v.holds_ref) throw notFound('Content of this version');
      const stat = await deps.blobs.stat(v.sha256);
      if (!stat) throw notFound('Content of this version');
      const range = parseRange(rangeHeader, stat.size);
      const body = await deps.blobs.read(v.sha256, range);
      return { version: itemVersionView(v, versionNumber), sha256: v.sha256, size: stat.size, range, body };
    },

    async listRuns(collectionId: string, q: { cursor?: string; limit: number }): Promise<{ runs: RunView[]; cursor: string | null }> {
      const page = await runs.list(collectionId, q);
      const views = [];
      for (const run of page.rows) views.push(runView(run, await runs.errors(run.id, RUN_ERRORS_SHOWN + 1), RUN_ERRORS_SHOWN));
      return { runs: views, cursor: page.cursor };
    },
  };
}

export type SyncQueries = ReturnType<typeof createSyncQueries>;

/**
 * RFC 9110 single byte ranges: `bytes=a-b`, `bytes=a-`, `bytes=-n`. A header this does not understand (other
 * units, several ranges) is ignored and the whole content is sent, as the RFC allows.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) throw unsatisfiable(size);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined;
  }
  if (start >= size) throw unsatisfiable(size);
  return { start, end };
}

function unsatisfiable(size: number): AppError {
  return new AppError(416, `The range is outside the content (${size} bytes).`, undefined, { 'Content-Range': `bytes */${size}` });
}
