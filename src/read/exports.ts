import type { AppContext } from '../context.ts';
import { conflict, notFound } from '../domain/errors.ts';
import { ExportRepo, type ExportRow } from '../store/exports.ts';
import type { CollectionReads } from './collections.ts';
import type { StoredContent } from './queries.ts';

export type { ExportRow };

/** The exports of the caller's collection (404 for the collection first, then for an export not of it). */
export type ExportReads = ReturnType<typeof createExportReads>;

export function createExportReads(deps: Pick<AppContext, 'db' | 'blobs'>, collections: CollectionReads) {
  const exports = new ExportRepo(deps.db);

  const ownExport = async (accountId: string, collectionId: string, exportId: string) => {
    const { collection } = await collections.own(accountId, collectionId);
    const row = await exports.get(exportId);
    if (!row || row.collection_id !== collection.id) throw notFound('Export');
    return { collection, row };
  };

  return {
    ownExport,

    async list(accountId: string, collectionId: string): Promise<ExportRow[]> {
      const { collection } = await collections.own(accountId, collectionId);
      return exports.listForCollection(collection.id);
    },

    async get(accountId: string, collectionId: string, exportId: string): Promise<ExportRow> {
      return (await ownExport(accountId, collectionId, exportId)).row;
    },

    /**
     * The package of a succeeded export, looked up but not yet read (409 before it has succeeded). `found` hears of
     * the export as soon as it is known to be the caller's (the audit entry names it even when refused).
     */
    async package(
      accountId: string,
      collectionId: string,
      exportId: string,
      found?: (row: ExportRow) => void,
    ): Promise<StoredContent> {
      const { row } = await ownExport(accountId, collectionId, exportId);
      found?.(row);
      if (row.status !== 'succeeded' || !row.sha256)
        throw conflict('not_ready', `the export is "${row.status}": only a succeeded export has a package.`);
      const sha256 = row.sha256;
      const stat = await deps.blobs.stat(sha256);
      if (!stat) throw notFound('Export package');
      return {
        sha256,
        size: stat.size,
        name: `custody-export-${row.id}.zip`,
        mime_type: 'application/zip',
        collected_datetime: row.finished_at ?? row.created_at,
        read: (range) => deps.blobs.read(sha256, range),
      };
    },
  };
}
