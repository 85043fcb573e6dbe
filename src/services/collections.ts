import type { Connector, FilterIssue } from '../connectors/types.ts';
import { conflict, DomainError, invalidInput, notFound } from '../domain/errors.ts';
import { listProblems } from '../domain/text.ts';
import type { CollectionReads } from '../read/collections.ts';
import type { RunReads } from '../read/runs.ts';
import { deleteCollections } from '../sync/deletion/deletion.ts';
import type { ServiceDeps } from './deps.ts';
import { permissionGaps } from './scope-gaps.ts';

/** Checking ids against the provider must not hold a PATCH open through a long throttling pause. */
const ID_CHECK_TIMEOUT_MS = 15_000;

export interface CollectionPatch {
  sync_status?: 'pending';
  sync_filters?: unknown;
  type_sync?: 'one' | 'arch' | 'auto';
}

/** Creating, changing, starting and deleting the caller's collections, and cancelling their runs. */
export function createCollectionService(deps: ServiceDeps, reads: { collections: CollectionReads; runs: RunReads }) {
  /** Ids the paired account does not have; undefined when that cannot be known now (unpaired, provider trouble). */
  async function unknownIds(
    collection: { id: string; wallet_id: string },
    connector: Connector,
    filters: unknown,
  ): Promise<FilterIssue[] | undefined> {
    if (!connector.checkFilterIds) return undefined;
    const wallet = await deps.repos.wallets.getById(collection.wallet_id);
    if (!wallet?.sealed_grant) return undefined;
    try {
      const ctx = await deps.providers.open(collection, connector, {
        signal: AbortSignal.timeout(ID_CHECK_TIMEOUT_MS),
      });
      return await connector.checkFilterIds(ctx, filters);
    } catch (err) {
      deps.log.debug(
        { err: (err as Error).message, collection_id: collection.id },
        'could not check filter ids against the provider',
      );
      return undefined;
    }
  }

  /** 422 (`invalid_filters`, the field pointing into them) when the filters break the collection type's rules. */
  async function checkFilters(collection: { id: string; wallet_id: string }, connector: Connector, filters: unknown) {
    const issues = connector.validateFilters(filters);
    if (issues.length === 0) issues.push(...((await unknownIds(collection, connector, filters)) ?? []));
    if (issues.length === 0) {
      const gap = (await permissionGaps(deps, collection, connector, filters))[0];
      if (gap)
        throw new DomainError(
          'invalid_filters',
          `sync_filters${gap.pointer}: ${gap.message}.`,
          `sync_filters${gap.pointer}`,
        );
    }
    if (issues.length > 0)
      throw new DomainError(
        'invalid_filters',
        listProblems(issues.map((i) => `sync_filters${i.pointer}: ${i.message}`)),
        `sync_filters${issues[0].pointer}`,
      );
  }

  return {
    /** A collection in the caller's workspace, bound to the caller's wallet of the type's config_type. */
    async create(
      accountId: string,
      input: { name: string; onna_parent_id: string; type: string; credential_id: string },
    ): Promise<string> {
      const { name, onna_parent_id, type, credential_id } = input;
      const connector = deps.connectors.get(type);
      if (!connector) throw invalidInput(`type must be one of ${deps.connectors.types().join(', ')}.`, 'type');
      if (!(await deps.repos.workspaces.get(accountId, onna_parent_id))) throw notFound('Workspace', 'onna_parent_id');
      const wallet = await deps.repos.wallets.get(accountId, credential_id);
      if (!wallet) throw notFound('Wallet', 'credential_id');
      if (wallet.config_type !== connector.configType) {
        throw invalidInput(
          `the wallet's config_type is "${wallet.config_type}"; a ${type} collection needs a wallet with config_type "${connector.configType}".`,
          'credential_id',
        );
      }
      return deps.repos.collections.create(accountId, {
        name,
        workspace_id: onna_parent_id,
        wallet_id: credential_id,
        type,
      });
    },

    /** Saves filters and/or the sync type, then queues a sync when asked (it needs filters, saved now or before). */
    async patch(accountId: string, id: string, patch: CollectionPatch): Promise<void> {
      const { collection, connector } = await reads.collections.load(accountId, id);
      const { sync_filters, type_sync, sync_status } = patch;
      if (sync_filters !== undefined) await checkFilters(collection, connector, sync_filters);
      if (sync_status === 'pending' && sync_filters === undefined && collection.sync_filters === null) {
        throw conflict(
          'not_ready',
          'sync_status "pending" needs sync_filters: send them in this request or save them first.',
          'sync_filters',
        );
      }
      await deps.repos.collections.update(collection.id, {
        ...(sync_filters !== undefined && {
          sync_filters: JSON.stringify(sync_filters),
          filters_updated_at: new Date().toISOString(),
        }),
        ...(type_sync !== undefined && { type_sync }),
      });
      if (sync_status === 'pending') await deps.engine.queue(collection.id);
    },

    /** POST start: the engine's requestStart on the caller's collection. */
    async start(accountId: string, id: string) {
      const { collection } = await reads.collections.load(accountId, id);
      return deps.engine.requestStart(collection.id);
    },

    async delete(accountId: string, id: string): Promise<void> {
      const { collection } = await reads.collections.load(accountId, id);
      await deleteCollections(deps, { accountId, collectionIds: [collection.id] });
    },

    /**
     * Cancels a queued or running run of the caller's collection (409 once it has ended) and returns its status
     * after. `found` hears of the run as soon as it is known to be the caller's.
     */
    async cancelRun(
      accountId: string,
      collectionId: string,
      runId: string,
      found?: (run: { id: string; collection_id: string }) => void,
    ): Promise<{ runId: string; status: string }> {
      const { collection, run } = await reads.runs.ownRun(accountId, collectionId, runId);
      if (run.status !== 'queued' && run.status !== 'running')
        throw conflict('run_ended', `the run has already ended ("${run.status}").`);
      found?.(run);
      await deps.engine.cancel(collection.id);
      return { runId: run.id, status: (await reads.runs.statusOf(run.id)) ?? 'cancelled' };
    },
  };
}
