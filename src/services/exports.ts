import { conflict, invalidInput } from '../domain/errors.ts';
import type { ExportReads } from '../read/exports.ts';
import type { CollectionReads } from '../read/collections.ts';
import { EventRepo } from '../store/events.ts';
import { ExportRepo, type ExportRow } from '../store/exports.ts';
import { newId, nowIso } from '../store/ids.ts';
import type { ServiceDeps } from './deps.ts';

export interface ExportRequest {
  items?: { custodians?: string[]; kinds?: string[]; run_id?: string; from?: string; to?: string };
  chat_format?: 'rsmf' | 'json';
  dedupe?: 'none' | 'custodian' | 'global';
}

export type ExportOptions = Required<Pick<ExportRequest, 'chat_format' | 'dedupe'>> & {
  items: NonNullable<ExportRequest['items']>;
};

/** Production exports of the caller's collections: queued here, written by a worker, cancelled here. */
export function createExportService(deps: ServiceDeps, reads: { collections: CollectionReads; exports: ExportReads }) {
  const exports = new ExportRepo(deps.db);
  return {
    /**
     * Queues an export of the caller's collection (409 while it is being deleted; 400 for a kind its type does not
     * have, a run not of it, `from` after `to`). `created` hears of the row before a worker is asked to write it.
     */
    async create(
      accountId: string,
      collectionId: string,
      body: ExportRequest,
      created?: (row: ExportRow, options: ExportOptions) => void,
    ): Promise<ExportRow> {
      const { collection, connector } = await reads.collections.own(accountId, collectionId);
      if (collection.deleting_at) throw conflict('status', 'the collection is being deleted.');
      const items = body.items ?? {};
      const known = connector?.kinds ?? [];
      const unknown = (items.kinds ?? []).find((k) => !known.includes(k));
      if (unknown !== undefined)
        throw invalidInput(
          `kind "${unknown}" is not a kind of ${collection.type} collections (${known.join(', ')}).`,
          'items/kinds',
        );
      if (items.run_id) {
        const run = await deps.repos.runs.get(items.run_id);
        if (run?.collection_id !== collection.id)
          throw invalidInput('run_id is not a run of this collection.', 'items/run_id');
      }
      if (items.from && items.to && Date.parse(items.from) > Date.parse(items.to))
        throw invalidInput('from is after to.', 'items/from');
      const options: ExportOptions = { items, chat_format: body.chat_format ?? 'rsmf', dedupe: body.dedupe ?? 'none' };
      const row = await exports.create({
        id: newId('exp'),
        account_id: accountId,
        collection_id: collection.id,
        options: JSON.stringify(options),
        created_at: nowIso(),
      });
      created?.(row, options);
      await deps.engine.exportQueued(row.id);
      return row;
    },

    /**
     * Ends a queued or running export `cancelled` (409 once it has ended) and stops its writer in this process.
     * `found` hears of the export as soon as it is known to be the caller's.
     */
    async cancel(
      accountId: string,
      collectionId: string,
      exportId: string,
      found?: (row: ExportRow) => void,
    ): Promise<ExportRow> {
      const { collection, row } = await reads.exports.ownExport(accountId, collectionId, exportId);
      found?.(row);
      if (!(await exports.cancel(row.id, nowIso())))
        throw conflict('export_ended', `the export has already ended ("${row.status}").`);
      await new EventRepo(deps.db).append({
        accountId: row.account_id,
        collectionId: collection.id,
        type: 'export.finished',
        data: { export_id: row.id, status: 'cancelled' },
      });
      await deps.engine.exportCancelled(row.id);
      return row;
    },
  };
}
