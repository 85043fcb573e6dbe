import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { errors, IdParams, NoContent } from '../../schemas.ts';

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
      await app.ctx.services.collections.patch(req.caller.accountId, req.params.id, req.body);
      return reply.code(204).send(null);
    },
  );
}
