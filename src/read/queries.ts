import type { Readable } from 'node:stream';
import type { BlobStore } from '../blobs/types.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { Database } from '../store/db.ts';
import { ItemRepo, previousVersionsOf, type ItemRow } from '../store/items.ts';
import { RunRepo } from '../store/runs.ts';
import { RunErrorRepo } from '../store/run-errors.ts';
import { UnitRepo } from '../store/units.ts';
import { withLiveCounters } from '../store/run-counters.ts';
import { itemVersionView, itemView, runView, type ItemVersionView, type ItemView, type RunView } from './views.ts';

/** Byte range of a content request, both ends inclusive; undefined = the whole blob. */
export type ByteRange = { start: number; end: number };

/** Stored bytes behind a content URL, looked up but not yet read. */
export interface StoredContent {
  sha256: string;
  size: number;
  name: string | null;
  mime_type: string | null;
  /** When Custody stored these bytes: the item's (or version's) collected_datetime, which changes only with its content. */
  collected_datetime: string;
  /** whose item it is, as collected (for the audit entry of the download) */
  owner?: { custodian: string | null; custodian_name: string | null; custodian_email: string | null };
  read(range?: ByteRange): Promise<Readable>;
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

  const storedContent = async (
    sha256: string,
    of: Pick<StoredContent, 'name' | 'mime_type' | 'collected_datetime'>,
    what: string,
    item: Pick<ItemRow, 'custodian' | 'custodian_name' | 'custodian_email'>,
  ): Promise<StoredContent> => {
    const stat = await deps.blobs.stat(sha256);
    if (!stat) throw notFound(what);
    const { name, mime_type, collected_datetime } = of;
    return {
      sha256,
      size: stat.size,
      name,
      mime_type,
      collected_datetime,
      owner: { custodian: item.custodian, custodian_name: item.custodian_name, custodian_email: item.custodian_email },
      read: (range) => deps.blobs.read(sha256, range),
    };
  };

  return {
    async listItems(collectionId: string, q: { cursor?: string; limit: number; kind?: string; custodian?: string }) {
      const page = await items.list(
        collectionId,
        { kind: q.kind, custodian: q.custodian },
        { cursor: q.cursor, limit: q.limit },
      );
      return { items: page.rows.map(itemView), cursor: page.cursor };
    },

    async getItem(collectionId: string, itemId: string): Promise<ItemView> {
      return itemView(await visibleItem(collectionId, itemId));
    },

    /** Throws 404 when the item has no stored content. */
    async itemContent(collectionId: string, itemId: string): Promise<StoredContent> {
      const row = await visibleItem(collectionId, itemId);
      if (row.content_state !== 'stored' || !row.sha256) throw notFound('Content of this item');
      return storedContent(row.sha256, row, 'Content of this item', row);
    },

    /** The item's superseded versions, oldest first. */
    async listVersions(
      collectionId: string,
      itemId: string,
    ): Promise<{ item_id: string; current_version_number: number; versions: ItemVersionView[] }> {
      const versions = previousVersionsOf(await visibleItem(collectionId, itemId));
      return {
        item_id: itemId,
        current_version_number: versions.length + 1,
        versions: versions.map((v, i) => itemVersionView(v, i + 1)),
      };
    },

    /** A superseded version's bytes; 404 when there is no such version or its content is not kept. */
    async versionContent(collectionId: string, itemId: string, versionNumber: number): Promise<StoredContent> {
      const row = await visibleItem(collectionId, itemId);
      const v = previousVersionsOf(row)[versionNumber - 1];
      if (!v) throw notFound('Version');
      if (!v.sha256 || !v.holds_ref) throw notFound('Content of this version');
      return storedContent(v.sha256, v, 'Content of this version', row);
    },

    async listRuns(
      collectionId: string,
      q: { cursor?: string; limit: number },
    ): Promise<{ runs: RunView[]; cursor: string | null }> {
      const page = await runs.list(collectionId, q);
      const tallies = await new UnitRepo(deps.db).tallies(page.rows.map((r) => r.id));
      const views = [];
      for (const run of await withLiveCounters(deps.db, page.rows))
        views.push(
          runView(
            run,
            await new RunErrorRepo(deps.db).ofRun(run.id, RUN_ERRORS_SHOWN + 1),
            RUN_ERRORS_SHOWN,
            tallies.get(run.id),
          ),
        );
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

function unsatisfiable(size: number): DomainError {
  return new DomainError('range_not_satisfiable', `The range is outside the content (${size} bytes).`, undefined, {
    'Content-Range': `bytes */${size}`,
  });
}
