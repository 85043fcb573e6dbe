import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { conflict } from '../../../domain/errors.ts';
import { AppError } from '../../errors.ts';
import { errors, IdParams, NoContent } from '../../schemas.ts';
import { listProblems } from '../../validation-detail.ts';
import { loadCollection } from './load.ts';
import { permissionGaps } from './permissions.ts';
import type { Connector, FilterIssue } from '../../../connectors/types.ts';

/** Checking ids against the provider must not hold a PATCH open through a long throttling pause. */
const ID_CHECK_TIMEOUT_MS = 15_000;

/** Ids the paired account does not have; undefined when that cannot be known now (unpaired, provider trouble). */
async function unknownIds(
  app: App,
  collection: { id: string; wallet_id: string },
  connector: Connector,
  filters: unknown,
): Promise<FilterIssue[] | undefined> {
  if (!connector.checkFilterIds) return undefined;
  const wallet = await app.ctx.repos.wallets.getById(collection.wallet_id);
  if (!wallet?.sealed_grant) return undefined;
  try {
    const ctx = await app.ctx.providers.open(collection, connector, {
      signal: AbortSignal.timeout(ID_CHECK_TIMEOUT_MS),
    });
    return await connector.checkFilterIds(ctx, filters);
  } catch (err) {
    app.log.debug(
      { err: (err as Error).message, collection_id: collection.id },
      'could not check filter ids against the provider',
    );
    return undefined;
  }
}

export default function patchCollection(app: App) {
  app.patch(
    '/v1/collections/:id',
    {
      config: { audit: 'collection.update' },
      schema: {
        operationId: 'patchCollection',
        tags: ['collections'],
        summary: 'Save sync filters, the sync type, and/or queue a sync',
        description:
          '`sync_filters` replaces the previous value entirely (no merge). `sync_status` accepts only `pending`: it queues a run and needs filters (saved in this request or before); in any state. While a run is going, that run keeps the filters it started with and the sync asked for starts when it ends (unless it ends in `error`, which needs a person first, or is cancelled); `latest_run` shows it as soon as it is queued. 422 with a JSON pointer when the filters break the rules of the collection type: for `edrive`, `{}` (nothing selected), keys that are not user ids (`account_owners`, …), user ids the paired tenant does not have and folder ids not in that user’s drive (when the tenant can be asked; otherwise the run reports such a user as a failed custodian); for `conf`, owner ids the paired Zoom account does not have (same rule), and filters that need a scope the paired Zoom app was not granted (the message names the scope and the feature).',
        params: IdParams,
        body: Type.Object(
          {
            sync_status: Type.Optional(Type.Literal('pending', { description: 'Clients may only write `pending`.' })),
            // Any JSON here: the collection type's rules decide (422 with a pointer), not a generic 400.
            sync_filters: Type.Optional(
              Type.Unknown({
                description:
                  'The whole filter object of the collection type. `conf` (Zoom): `account_owners` and `content_selections` are required selections `{all_selected, selected, excluded}`; `chats` is optional (no key: no chats). `edrive` (OneDrive): an object keyed by user id (from `GET /v1/collections/{id}/users`), each `{filter_type: "user_folders", filter_name, all_selected, selected: [{id}], excluded: [{id}]}` with folder ids from `GET /v1/collections/{id}/folders?user_id=`; only users that are keys are collected.',
                examples: [
                  {
                    account_owners: { all_selected: false, selected: [{ id: 'KDcuGIm1QgePTO8WbOqwIQ' }], excluded: [] },
                    content_selections: {
                      all_selected: false,
                      selected: [{ video: true }, { transcript: true }, { chat: true }],
                      excluded: [],
                    },
                    chats: {
                      all_selected: false,
                      selected: [
                        { 'one-to-one': true },
                        { channels: { all_selected: false, selected: [{ id: 'c4f1d2e0a9b84a1e9f1b' }], excluded: [] } },
                      ],
                      excluded: [],
                    },
                  },
                  {
                    '60651a07-667d-45bf-8fbc-7fdac8f77db4': {
                      filter_type: 'user_folders',
                      filter_name: 'Finance only',
                      all_selected: false,
                      selected: [{ id: '017RP2JUYOZ4ZPWICUTUKHU4RLDP774GCV' }],
                      excluded: [],
                    },
                    '285a05ef-6398-43c4-98d7-3c8f824a2dbb': {
                      filter_type: 'user_folders',
                      filter_name: 'Everything',
                      all_selected: true,
                      selected: [],
                      excluded: [],
                    },
                  },
                ],
              }),
            ),
            type_sync: Type.Optional(
              Type.Union([Type.Literal('one'), Type.Literal('arch'), Type.Literal('auto')], {
                description:
                  'Superseded versions kept while the collection was `arch` remain (with their content) when the type changes, until the collection is deleted; versions kept only because of a legal hold are purged once no hold covers a collection that is not `arch`.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 204: NoContent, ...errors(400, 401, 404, 409, 422, 429) },
      },
    },
    async (req, reply) => {
      const { collection, connector } = await loadCollection(app.ctx, req.caller.accountId, req.params.id);
      const { sync_filters, type_sync, sync_status } = req.body;
      if (sync_filters !== undefined) {
        const issues = connector.validateFilters(sync_filters);
        if (issues.length === 0) issues.push(...((await unknownIds(app, collection, connector, sync_filters)) ?? []));
        if (issues.length === 0) {
          const gap = (await permissionGaps(app, collection, connector, sync_filters))[0];
          if (gap)
            throw new AppError(422, `sync_filters${gap.pointer}: ${gap.message}.`, `/body/sync_filters${gap.pointer}`);
        }
        if (issues.length > 0) {
          const first = issues[0];
          throw new AppError(
            422,
            listProblems(issues.map((i) => `sync_filters${i.pointer}: ${i.message}`)),
            `/body/sync_filters${first.pointer}`,
          );
        }
      }
      if (sync_status === 'pending') {
        if (sync_filters === undefined && collection.sync_filters === null) {
          throw conflict(
            'not_ready',
            'sync_status "pending" needs sync_filters: send them in this request or save them first.',
            'sync_filters',
          );
        }
      }
      await app.ctx.repos.collections.update(collection.id, {
        ...(sync_filters !== undefined && {
          sync_filters: JSON.stringify(sync_filters),
          filters_updated_at: new Date().toISOString(),
        }),
        ...(type_sync !== undefined && { type_sync }),
      });
      if (sync_status === 'pending') await app.ctx.engine.queue(collection.id);
      return reply.code(204).send(null);
    },
  );
}
